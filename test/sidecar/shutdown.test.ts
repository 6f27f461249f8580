import { connect, type Socket } from 'node:net'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOK_EVENTS_QUEUE } from '../../src/queue/index.js'
import { signed, testEvent } from '../receiver/deliveries.js'
import { WEBHOOK_SECRET, startTestSidecar } from './sidecar-fixture.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let redis: Redis
let view: Queue

beforeAll(async () => {
  sidecar = await startTestSidecar('shutdown', ['receiver', 'worker', 'api'])
  redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null })
  view = new Queue(WEBHOOK_EVENTS_QUEUE, { connection: redis, prefix: sidecar.prefix })
})

afterAll(async () => {
  await view?.obliterate({ force: true })
  await view?.close()
  redis?.disconnect()
  await sidecar?.drop()
})

function rawDelivery(event: Record<string, unknown>) {
  const { body, headers } = signed(JSON.stringify(event), WEBHOOK_SECRET)
  const head =
    `POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${headers['content-type']}\r\n` +
    `Service-Signature: ${headers['service-signature']}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`
  return { head, body }
}

/** Everything the server writes to the socket until it closes it. */
function readAll(socket: Socket): Promise<string> {
  let text = ''
  socket.on('data', (chunk) => (text += chunk))
  return new Promise((resolve) => socket.on('close', () => resolve(text)))
}

function statuses(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))
}

describe('stopping the sidecar', () => {
  it('answers a delivery in flight and queues it, refuses the next one with 503, and loses neither', async () => {
    const port = Number(new URL(sidecar.url).port)
    const inFlight = testEvent()
    const after = testEvent()
    const first = rawDelivery(inFlight)
    const second = rawDelivery(after)

    const socket = connect(port, '127.0.0.1')
    const answers = readAll(socket)
    const received = new Promise<void>((resolve) => sidecar.server.once('request', () => resolve()))
    // Headers and half the body: the server is reading this delivery when the stop begins.
    socket.write(first.head + first.body.slice(0, 10))
    await received
    const closed = sidecar.close()
    // The rest of the first delivery and, pipelined on the same connection, a second one.
    socket.write(first.body.slice(10) + second.head + second.body)
    await closed

    const text = await answers
    expect(statuses(text)).toEqual([202, 503])
    expect(text).toContain('"code":"shutting_down"')
    expect(await view.getJob(inFlight.id as string)).toBeDefined()
    expect(await view.getJob(after.id as string)).toBeUndefined()
  })

  it('takes no connection once stopped', async () => {
    const { body, headers } = signed(JSON.stringify(testEvent()), WEBHOOK_SECRET)
    await expect(fetch(`${sidecar.url}/webhooks`, { method: 'POST', body, headers })).rejects.toThrow()
  })
})

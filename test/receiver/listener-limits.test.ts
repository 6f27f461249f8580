import { once } from 'node:events'
import type { Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { createRedisWebhookEventQueue } from '../../src/queue/index.js'
import { createLimitedServer, LISTENER_LIMITS, type ListenerLimits } from '../../src/http-listener/index.js'
import { createReceiverServer } from '../../src/receiver/index.js'
import { startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { REDIS_URL, SECRET, uniquePrefix } from './deliveries.js'

const closers: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const close of closers.reverse()) await close()
})

async function listening(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return (server.address() as AddressInfo).port
}

/** A raw client: what it sends, and everything the server answered before it closed the connection. */
async function rawExchange(port: number, send: string): Promise<{ answer: string; socket: Socket }> {
  let answer = ''
  const socket = connect(port, '127.0.0.1', () => socket.write(send))
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')))
  // A reset is one way of being refused (events.once would reject on it).
  socket.on('error', () => undefined)
  await new Promise((resolve) => socket.on('close', resolve))
  return { answer, socket }
}

const SMALL: ListenerLimits = {
  requestTimeoutMs: 1_500,
  headersTimeoutMs: 1_000,
  keepAliveTimeoutMs: 500,
  maxConnections: 2,
}

function expectLimits(server: Server, limits: ListenerLimits) {
  expect({
    requestTimeoutMs: server.requestTimeout,
    headersTimeoutMs: server.headersTimeout,
    keepAliveTimeoutMs: server.keepAliveTimeout,
    maxConnections: server.maxConnections,
  }).toEqual(limits)
}

describe('every listener', () => {
  it('the sidecar (and so `bankrec receiver`, its receiver role) bounds requests and connections', async () => {
    const sidecar = await startTestSidecar('limits', ['receiver'])
    closers.push(() => sidecar.drop())
    closers.push(() => sidecar.close())
    expectLimits(sidecar.server, LISTENER_LIMITS)
    expect(LISTENER_LIMITS.requestTimeoutMs).toBeLessThan(300_000)
  })

  it('the standalone receiver bounds them the same way, or as given', async () => {
    const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix: uniquePrefix('limits') })
    closers.push(() => queue.close())
    const receiver = createReceiverServer({ secrets: [SECRET], queue })
    expectLimits(receiver.server, LISTENER_LIMITS)
    expectLimits(createReceiverServer({ secrets: [SECRET], queue, limits: SMALL }).server, SMALL)
  })
})

describe('a limited listener', () => {
  it('answers a body that stalls with 408 and closes the connection, instead of holding it', async () => {
    const server = createLimitedServer((req, res) => {
      req.resume()
      req.on('end', () => res.end('read'))
    }, SMALL)
    const port = await listening(server)
    const { answer } = await rawExchange(
      port,
      'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"half":',
    )
    expect(answer).toMatch(/^HTTP\/1\.1 408/)
  })

  it('closes a connection whose headers never end', async () => {
    const server = createLimitedServer((_req, res) => res.end('never'), SMALL)
    const port = await listening(server)
    const { answer } = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n')
    expect(answer).not.toContain('never')
  })

  it('closes connections past the cap as they arrive, and serves the ones within it', async () => {
    const server = createLimitedServer((_req, res) => res.end('ok'), SMALL)
    const port = await listening(server)
    const held = await Promise.all(
      [0, 1].map(async () => {
        const socket = connect(port, '127.0.0.1')
        await once(socket, 'connect')
        return socket
      }),
    )
    const dropped = once(server, 'drop')
    const { answer } = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    await dropped
    expect(answer).toBe('')
    held[0]!.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    let served = ''
    held[0]!.on('data', (chunk: Buffer) => (served += chunk.toString()))
    await once(held[0]!, 'close')
    expect(served).toMatch(/^HTTP\/1\.1 200[\s\S]*ok$/)
    held[1]!.destroy()
  })
})

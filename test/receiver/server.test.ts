import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisWebhookEventQueue, jobIdFor, type WebhookEventQueue } from '../../src/queue/index.js'
import { createReceiverServer, type ReceiverServer } from '../../src/receiver/index.js'
import { REDIS_URL, SECRET, closedPort, inspectQueue, signed, testEvent, uniquePrefix } from './deliveries.js'

const prefix = uniquePrefix('server')
let queue: WebhookEventQueue
let receiver: ReceiverServer
let url: string
const view = inspectQueue(prefix)

beforeAll(async () => {
  queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, forward: false })
  receiver = createReceiverServer({ secrets: ['whsec_newer', SECRET], queue, bodyLimitBytes: 4096 })
  url = await receiver.listen({ port: 0 })
})

afterAll(async () => {
  await receiver.close()
  await queue.close()
  await view.close()
})

async function post(body: string, headers: Record<string, string>) {
  const response = await fetch(`${url}/webhooks`, { method: 'POST', body, headers })
  return { status: response.status, body: (await response.json()) as any, headers: response.headers }
}

describe('POST /webhooks', () => {
  it('answers 202 once the event is queued, as a job whose id is the event id', async () => {
    const event = testEvent()
    const response = await post(...args(signed(JSON.stringify(event))))
    expect(response.status).toBe(202)
    expect(response.body).toEqual({ status: 'queued', eventId: event.id })
    await view.forward()
    const job = await view.queue.getJob(event.id as string)
    expect(job?.name).toBe('test')
    expect(job?.data.event).toEqual(event)
    expect(job?.data.ignored).toBeUndefined()
  })

  it('answers 200 to a redelivery and queues the event only once', async () => {
    const event = testEvent()
    const first = await post(...args(signed(JSON.stringify(event))))
    // A redelivery is signed again, with its own timestamp.
    const second = await post(
      ...args(signed(JSON.stringify(event), SECRET, Math.floor(Date.now() / 1000) - 1)),
    )
    expect([first.status, second.status]).toEqual([202, 200])
    expect(second.body).toEqual({ status: 'duplicate', eventId: event.id })
    await view.forward()
    const jobs = await view.queue.getJobs(['waiting'])
    expect(jobs.filter((j) => j.data.event.id === event.id)).toHaveLength(1)
  })

  it('queues concurrent redeliveries of one event once', async () => {
    const event = testEvent()
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post(...args(signed(JSON.stringify(event))))),
    )
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 202])
    await view.forward()
    const jobs = await view.queue.getJobs(['waiting'])
    expect(jobs.filter((j) => j.data.event.id === event.id)).toHaveLength(1)
  })

  it('accepts a delivery signed with the older of two secrets', async () => {
    const response = await post(...args(signed(JSON.stringify(testEvent()), SECRET)))
    expect(response.status).toBe(202)
  })

  it('acknowledges reserved and unknown event types and records them as ignored', async () => {
    const reserved = testEvent({ type: 'transfer.status_changed', data: { transferId: 't' } })
    const unknown = testEvent({ type: 'invoice.paid', data: {} })
    expect((await post(...args(signed(JSON.stringify(reserved))))).body).toEqual({
      status: 'ignored',
      eventId: reserved.id,
      reason: 'reserved_type',
    })
    expect((await post(...args(signed(JSON.stringify(unknown))))).status).toBe(202)
    await view.forward()
    expect((await view.queue.getJob(reserved.id as string))?.data.ignored).toBe('reserved_type')
    expect((await view.queue.getJob(unknown.id as string))?.data.ignored).toBe('unknown_type')
  })

  it('queues an event whose id BullMQ would refuse as a job id under a digest of it', async () => {
    const event = testEvent({ id: '12345' })
    expect((await post(...args(signed(JSON.stringify(event))))).status).toBe(202)
    await view.forward()
    expect((await view.queue.getJob(jobIdFor('12345')))?.data.event.id).toBe('12345')
  })

  it('answers 401 to a bad signature and to a stale timestamp, with the reason as code', async () => {
    const body = JSON.stringify(testEvent())
    const forged = await post(...args(signed(body, 'whsec_attacker')))
    expect(forged.status).toBe(401)
    expect(forged.body.error).toMatchObject({ code: 'signature_mismatch' })
    expect(forged.body.error.requestId).toBe(forged.headers.get('x-request-id'))
    const stale = await post(...args(signed(body, SECRET, Math.floor(Date.now() / 1000) - 3_600)))
    expect(stale.status).toBe(401)
    expect(stale.body.error.code).toBe('timestamp_outside_tolerance')
    const missing = await post(body, { 'content-type': 'application/json' })
    expect([missing.status, missing.body.error.code]).toEqual([401, 'missing_header'])
  })

  it('answers 400 to a malformed header and to a signed body that cannot be stored, naming the reason', async () => {
    const malformed = await post('{}', { 'content-type': 'application/json', 'service-signature': 'v1=zz' })
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'malformed_header'])
    const notJson = await post(...args(signed('{"id":')))
    expect([notJson.status, notJson.body.error.code]).toEqual([400, 'invalid_json'])
    const deep = await post(...args(signed(`{"id":"evt_deep","a":${'['.repeat(1000)}${']'.repeat(1000)}}`)))
    expect([deep.status, deep.body.error.code]).toEqual([400, 'too_deep'])
    const nul = await post(...args(signed('{"id":"evt_nul","note":"a\\u0000b"}')))
    expect([nul.status, nul.body.error.code]).toEqual([400, 'unstorable_text'])
  })

  it('queues a signed envelope whatever its shape, under its id or its body’s digest', async () => {
    const bare = {
      id: `evt_${Date.now()}_bare`,
      type: 'transactions.sync_available',
      data: { connectionId: 'c' },
    }
    const first = await post(...args(signed(JSON.stringify(bare))))
    expect([first.status, first.body]).toEqual([202, { status: 'queued', eventId: bare.id }])
    const anonymous = JSON.stringify({ eventType: 'test', payload: { at: Date.now() } })
    const noId = await post(...args(signed(anonymous)))
    expect(noId.status).toBe(202)
    expect(noId.body.eventId).toMatch(/^body-sha256-[0-9a-f]{64}$/)
    const again = await post(...args(signed(anonymous, SECRET, Math.floor(Date.now() / 1000) - 1)))
    expect([again.status, again.body.status, again.body.eventId]).toEqual([
      200,
      'duplicate',
      noId.body.eventId,
    ])
    await view.forward()
    expect((await view.queue.getJob(bare.id))?.data.event).toEqual(bare)
    const job = await view.queue.getJob(jobIdFor(noId.body.eventId))
    expect([job?.name, job?.data.event]).toEqual(['test', JSON.parse(anonymous)])
  })

  it('answers 415 to a body that is not JSON by content type', async () => {
    const { body, headers } = signed(JSON.stringify(testEvent()))
    const response = await post(body, { ...headers, 'content-type': 'text/plain' })
    expect([response.status, response.body.error.code]).toEqual([415, 'unsupported_media_type'])
  })

  it('answers 413 to a body over the limit announced by Content-Length, before reading it', async () => {
    const big = JSON.stringify(testEvent({ data: { webhookId: 'x'.repeat(5000) } }))
    const response = await post(...args(signed(big)))
    expect([response.status, response.body.error.code]).toEqual([413, 'payload_too_large'])
    expect(response.headers.get('connection')).toBe('close')
  })

  it('answers 413 to a chunked body as soon as it passes the limit', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-signature': 't=1,v1=00' },
      })
      req.on('response', (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      })
      req.on('error', reject)
      // Far more than the limit is offered; the receiver answers before it has all of it.
      req.write('x'.repeat(8192))
      const more = setInterval(() => req.write('x'.repeat(1024)), 5)
      req.on('close', () => clearInterval(more))
    })
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body).error.code).toBe('payload_too_large')
  })

  it('answers 405 to another method and 404 elsewhere', async () => {
    expect((await fetch(`${url}/webhooks`)).status).toBe(405)
    expect((await fetch(`${url}/nowhere`, { method: 'POST', body: '{}' })).status).toBe(404)
  })
})

describe('health and metrics', () => {
  it('answers /healthz and /readyz with 200 while the queue is reachable', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200)
    expect((await fetch(`${url}/readyz`)).status).toBe(200)
  })

  it('counts deliveries by outcome and reason on /metrics', async () => {
    const text = await (await fetch(`${url}/metrics`)).text()
    expect(text).toMatch(/bankrec_receiver_deliveries_total\{outcome="queued",reason="ok"\} \d+/)
    expect(text).toMatch(/bankrec_receiver_deliveries_total\{outcome="duplicate",reason="duplicate"\} \d+/)
    expect(text).toMatch(
      /bankrec_receiver_deliveries_total\{outcome="rejected",reason="signature_mismatch"\} 1/,
    )
    expect(text).toMatch(/bankrec_receiver_deliveries_total\{outcome="ignored",reason="reserved_type"\} 1/)
  })
})

describe('when Redis is unreachable', () => {
  it('answers 503 to a valid delivery and to /readyz, and never 2xx', async () => {
    const port = await closedPort()
    const downQueue = createRedisWebhookEventQueue({
      url: `redis://127.0.0.1:${port}`,
      prefix,
      timeoutMs: 300,
    })
    const down = createReceiverServer({ secrets: [SECRET], queue: downQueue })
    const downUrl = await down.listen({ port: 0 })
    try {
      const { body, headers } = signed(JSON.stringify(testEvent()))
      const response = await fetch(`${downUrl}/webhooks`, { method: 'POST', body, headers })
      expect(response.status).toBe(503)
      expect(((await response.json()) as any).error.code).toBe('queue_unavailable')
      expect((await fetch(`${downUrl}/readyz`)).status).toBe(503)
      expect((await fetch(`${downUrl}/healthz`)).status).toBe(200)
    } finally {
      await down.close()
      await downQueue.close()
    }
  })
})

function args(delivery: { body: string; headers: Record<string, string> }): [string, Record<string, string>] {
  return [delivery.body, delivery.headers]
}

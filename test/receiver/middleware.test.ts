import express from 'express'
import request from 'supertest'
import { afterAll, describe, expect, it } from 'vitest'
import { createRedisWebhookEventQueue } from '../../src/queue/index.js'
import { createWebhookMiddleware } from '../../src/receiver/index.js'
import { REDIS_URL, SECRET, inspectQueue, signed, testEvent, uniquePrefix } from './deliveries.js'

const prefix = uniquePrefix('middleware')
const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, forward: false })
const view = inspectQueue(prefix)

afterAll(async () => {
  await queue.close()
  await view.close()
})

function appWith(setup: (app: express.Express) => void) {
  const app = express()
  setup(app)
  return app
}

describe('createWebhookMiddleware', () => {
  it('verifies and queues a delivery when mounted before express.json()', async () => {
    const app = appWith((app) => {
      app.post('/webhooks', createWebhookMiddleware({ secrets: [SECRET], queue }))
      app.use(express.json())
    })
    const event = testEvent()
    const delivery = signed(JSON.stringify(event))
    const response = await request(app).post('/webhooks').set(delivery.headers).send(delivery.body)
    expect(response.status).toBe(202)
    expect(response.body).toEqual({ status: 'queued', eventId: event.id })
    await view.forward()
    expect((await view.queue.getJob(event.id as string))?.data.event).toEqual(event)
    const again = await request(app).post('/webhooks').set(delivery.headers).send(delivery.body)
    expect(again.status).toBe(200)
  })

  it('answers 500 telling the developer to mount it before express.json() when the body was parsed', async () => {
    const app = appWith((app) => {
      app.use(express.json())
      app.post('/webhooks', createWebhookMiddleware({ secrets: [SECRET], queue }))
    })
    const delivery = signed(JSON.stringify(testEvent()))
    const response = await request(app).post('/webhooks').set(delivery.headers).send(delivery.body)
    expect(response.status).toBe(500)
    expect(response.body.error.code).toBe('parsed_body')
    expect(response.body.error.message).toMatch(/before express\.json\(\)/)
  })

  it('uses the exact bytes express.raw() left', async () => {
    const app = appWith((app) => {
      app.use(express.raw({ type: 'application/json' }))
      app.post('/webhooks', createWebhookMiddleware({ secrets: [SECRET], queue }))
    })
    const delivery = signed(JSON.stringify(testEvent()))
    const response = await request(app).post('/webhooks').set(delivery.headers).send(delivery.body)
    expect(response.status).toBe(202)
  })

  it('answers 401, 413 and 415 like the standalone receiver', async () => {
    const app = appWith((app) => {
      app.post('/webhooks', createWebhookMiddleware({ secrets: [SECRET], queue, bodyLimitBytes: 1024 }))
    })
    const forged = signed(JSON.stringify(testEvent()), 'whsec_other')
    const unauthorized = await request(app).post('/webhooks').set(forged.headers).send(forged.body)
    expect([unauthorized.status, unauthorized.body.error.code]).toEqual([401, 'signature_mismatch'])
    const big = signed(JSON.stringify(testEvent({ data: { webhookId: 'x'.repeat(2048) } })))
    const tooLarge = await request(app).post('/webhooks').set(big.headers).send(big.body)
    expect(tooLarge.status).toBe(413)
    const text = await request(app)
      .post('/webhooks')
      .set({ ...forged.headers, 'content-type': 'text/plain' })
      .send('hello')
    expect(text.status).toBe(415)
  })

  it('calls the hooks: enqueue instead of a queue, now for the tolerance, onError and logger', async () => {
    const enqueued: string[] = []
    const warnings: unknown[] = []
    const errors: unknown[] = []
    const fixedNow = new Date('2026-03-02T09:00:00Z')
    const middleware = createWebhookMiddleware({
      secrets: [SECRET],
      now: () => fixedNow,
      enqueue: async (job) => {
        if (job.type === 'account.updated') throw new Error('queue is down')
        enqueued.push(job.eventId)
        return 'queued'
      },
      onError: (error) => errors.push(error),
      logger: { warn: (fields) => warnings.push(fields), error: () => undefined },
    })
    const app = appWith((app) => app.post('/webhooks', middleware))
    const at = Math.floor(fixedNow.getTime() / 1000)
    const event = testEvent({ createdAt: fixedNow.toISOString() })
    const ok = signed(JSON.stringify(event), SECRET, at)
    expect((await request(app).post('/webhooks').set(ok.headers).send(ok.body)).status).toBe(202)
    expect(enqueued).toEqual([event.id])
    const failing = signed(JSON.stringify(testEvent({ type: 'account.updated', data: {} })), SECRET, at)
    expect((await request(app).post('/webhooks').set(failing.headers).send(failing.body)).status).toBe(503)
    expect(errors).toHaveLength(1)
    const realTime = signed(JSON.stringify(testEvent()), SECRET, at + 3_600)
    expect((await request(app).post('/webhooks').set(realTime.headers).send(realTime.body)).status).toBe(401)
    expect(warnings).toContainEqual(expect.objectContaining({ reason: 'timestamp_outside_tolerance' }))
  })

  it('refuses to start without a secret', () => {
    expect(() => createWebhookMiddleware({ secrets: [''], queue })).toThrow(/No webhook secret/)
  })
})

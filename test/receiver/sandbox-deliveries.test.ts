import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisWebhookEventQueue, type WebhookEventQueue } from '../../src/queue/index.js'
import { createReceiverServer, type ReceiverServer } from '../../src/receiver/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { REDIS_URL, inspectQueue, uniquePrefix } from './deliveries.js'

const prefix = uniquePrefix('sandbox')
const view = inspectQueue(prefix)
let harness: SandboxHarness
let queue: WebhookEventQueue
let receiver: ReceiverServer
let webhookId: string

beforeAll(async () => {
  harness = await startSandbox()
  // The secret is known only once the registration exists, so it is created first and pointed here after.
  const created = await harness.request('POST', '/v1/webhooks', {
    body: {
      url: 'http://127.0.0.1:9/webhooks',
      events: ['connection.status_changed', 'transactions.sync_available', 'test'],
    },
  })
  expect(created.status).toBe(201)
  webhookId = created.body.id
  queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, forward: false })
  receiver = createReceiverServer({ secrets: [created.body.secret], queue })
  const url = await receiver.listen({ port: 0 })
  const patched = await harness.request('PATCH', `/v1/webhooks/${webhookId}`, {
    body: { url: `${url}/webhooks` },
  })
  expect(patched.status).toBe(200)
})

afterAll(async () => {
  await harness?.close()
  await receiver?.close()
  await queue?.close()
  await view.close()
})

describe('the sandbox delivering into the standalone receiver', () => {
  it('queues every event exactly once despite duplicated and reordered deliveries', async () => {
    const faults = await harness.request('PUT', '/_sandbox/faults', {
      body: { webhooks: { duplicateRate: 0.3, reorder: true } },
    })
    expect(faults.status).toBe(200)
    for (let i = 0; i < 12; i++) {
      expect((await harness.request('POST', `/v1/webhooks/${webhookId}/test`)).status).toBe(202)
    }
    // Onboarding a bank emits connection.status_changed and transactions.sync_available events too.
    await connectReadyBank(harness)
    const flushed = await harness.request('POST', '/_sandbox/webhooks/flush')
    expect(flushed.status).toBe(200)

    const deliveries = (await harness.request('GET', `/_sandbox/webhooks/deliveries?webhookId=${webhookId}`))
      .body.data as { eventId: string; type: string; status: string; lastStatusCode: number }[]
    expect(deliveries.length).toBeGreaterThan(12)
    expect(new Set(deliveries.map((d) => d.type))).toEqual(
      new Set(['test', 'connection.status_changed', 'transactions.sync_available']),
    )
    for (const delivery of deliveries) expect(delivery).toMatchObject({ status: 'delivered' })

    await view.forward()
    const jobs = await view.queue.getJobs(['waiting'])
    const queuedIds = jobs.map((job) => job.id)
    expect(queuedIds.sort()).toEqual(deliveries.map((d) => d.eventId).sort())

    const metrics = await receiver.receiver.metrics.registry.getSingleMetricAsString(
      'bankrec_receiver_deliveries_total',
    )
    // The duplicate fault did fire, and each duplicate was answered 200 without a second job.
    expect(metrics).toMatch(/outcome="duplicate",reason="duplicate"\} [1-9]/)
    expect(metrics).not.toMatch(/outcome="rejected"/)
  })
})

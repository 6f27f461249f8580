import { Writable } from 'node:stream'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { systemClock } from '../../src/clock/index.js'
import { createLogger } from '../../src/observability/index.js'
import {
  WEBHOOK_EVENTS_QUEUE,
  createBackendQueue,
  createPostgresWebhookEventQueue,
  createRedisWebhookEventQueue,
  jobIdFor,
  type QueueBackendConfig,
  type WebhookEventQueue,
  type WebhookJobData,
} from '../../src/queue/index.js'
import { createReceiverServer, type ReceiverServer } from '../../src/receiver/index.js'
import { createEventWorker, type WebhookEventEffects } from '../../src/webhook-events/index.js'
import { REDIS_URL, SECRET, deleteKeys, signed, testEvent, uniquePrefix } from '../receiver/deliveries.js'
import { createTestQueueDatabase, type TestQueueDatabase } from '../support/test-database.js'

/**
 * Issue 28: the job carries the event id the receiver answered with, and the worker's log lines name that one.
 * A numeric id used to be dropped at the queue and read again from the job id (a digest for integers).
 */
let database: TestQueueDatabase
beforeAll(async () => {
  database = await createTestQueueDatabase('event_id')
})
afterAll(async () => {
  await database?.drop()
})

/** Effects the `test` events below never call: any call fails the job, and so the test. */
const noEffects: WebhookEventEffects = {
  requestSync: () => Promise.reject(new Error('unexpected sync')),
  requestSyncOfAll: () => Promise.reject(new Error('unexpected sync')),
  lookupConnection: () => Promise.reject(new Error('unexpected lookup')),
  recordConnection: () => Promise.reject(new Error('unexpected record')),
  onStatusChanged: () => Promise.reject(new Error('unexpected status change')),
  onUninterpretable: () => Promise.reject(new Error('unexpected alert')),
}

type Setup = { backend: QueueBackendConfig; queue: WebhookEventQueue; cleanup(): Promise<void> }

const setups: Record<string, () => Setup> = {
  'Redis, each job added by the receiver': () => redisSetup(1_000),
  'Redis, through the inbox and its forwarder': () => redisSetup(0),
  PostgreSQL: () => {
    const { backend } = database
    const queue = createPostgresWebhookEventQueue({ db: database.db, backend })
    return { backend, queue, cleanup: async () => undefined }
  },
}

function redisSetup(directBelowEventsPerSecond: number): Setup {
  const prefix = uniquePrefix('event-id')
  const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, directBelowEventsPerSecond })
  return {
    backend: { kind: 'redis', url: REDIS_URL, prefix },
    queue,
    async cleanup() {
      const redis = new Redis(REDIS_URL)
      await deleteKeys(redis, `${prefix}:*`)
      redis.disconnect()
    },
  }
}

describe.each(Object.keys(setups))('the event id on %s', (name) => {
  let setup: Setup
  let receiver: ReceiverServer
  let url: string
  let logText = ''
  let worker: ReturnType<typeof createEventWorker>
  beforeAll(async () => {
    setup = setups[name]!()
    receiver = createReceiverServer({ secrets: [SECRET], queue: setup.queue })
    url = await receiver.listen({ port: 0 })
    const logger = createLogger({
      destination: new Writable({
        write(chunk, _encoding, done) {
          logText += String(chunk)
          done()
        },
      }),
    })
    worker = createEventWorker({
      db: database.db,
      backend: setup.backend,
      effects: noEffects,
      clock: systemClock,
      logger,
    })
  })
  afterAll(async () => {
    await worker?.close()
    await receiver?.close()
    await setup?.queue.close()
    await setup?.cleanup()
  })

  const workerLines = (eventId: string) =>
    logText
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { eventId?: string; msg: string })
      .filter((line) => line.msg.startsWith('webhook event') && line.eventId === eventId)

  it.each([
    ['a numeric id', () => Math.floor(Math.random() * 1e12)],
    ['a string id', () => `evt_${Math.random().toString(36).slice(2)}`],
  ])(
    'names %s as the receiver answered it, in the job and in every worker log line',
    async (_, idOf) => {
      const id = idOf()
      const event = testEvent({ id })
      const delivery = signed(JSON.stringify(event))
      const response = await fetch(`${url}/webhooks`, { method: 'POST', ...delivery })
      const answer = (await response.json()) as { status: string; eventId: string }
      expect(response.status).toBe(202)
      expect(answer.eventId).toBe(String(id))

      await vi.waitFor(() => expect(workerLines(answer.eventId)).toHaveLength(1), { timeout: 15_000 })
      const view = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, setup.backend)
      try {
        const job = await view.getJob(jobIdFor(answer.eventId))
        expect(job?.data.eventId).toBe(answer.eventId)
      } finally {
        await view.close()
      }
      expect(workerLines(answer.eventId)[0]).toMatchObject({
        msg: 'webhook event handled',
        outcome: 'processed',
      })
      // The claim is keyed by the same id: a redelivery of the event is known whichever id it was answered with.
      const claimed = await database.db
        .selectFrom('processed_events')
        .select('event_id')
        .where('event_id', '=', answer.eventId)
        .execute()
      expect(claimed).toHaveLength(1)
      // No worker line names the event by any other id (the job id's digest, as before issue 28).
      const other = logText.split('\n').filter((line) => line.includes(jobIdFor(answer.eventId)))
      if (jobIdFor(answer.eventId) !== answer.eventId) expect(other).toEqual([])
    },
    30_000,
  )

  it('reads the id of a job queued before the job carried it as those versions did: the envelope’s string id', async () => {
    const event = testEvent()
    const view = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, setup.backend)
    try {
      const eventId = event.id as string
      await view.add('test', { event, receivedAt: new Date().toISOString() }, { jobId: jobIdFor(eventId) })
      await vi.waitFor(() => expect(workerLines(eventId)).toHaveLength(1), { timeout: 15_000 })
    } finally {
      await view.close()
    }
  }, 30_000)
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  WEBHOOK_EVENTS_QUEUE,
  createBackendQueue,
  createBackendWorker,
  createPostgresWebhookEventQueue,
  type WebhookEventQueue,
  type WebhookJob,
  type WebhookJobData,
} from '../../src/queue/index.js'
import { createBatchingEnqueue } from '../../src/receiver/index.js'
import { createTestQueueDatabase, type TestQueueDatabase } from '../support/test-database.js'

let database: TestQueueDatabase
let backend: TestQueueDatabase['backend']
beforeAll(async () => {
  database = await createTestQueueDatabase('pg_event_queue')
  backend = database.backend
})
afterAll(async () => {
  await database?.drop()
})

function job(id: string, note = 'x'): WebhookJob {
  return {
    eventId: id,
    type: 'test',
    event: { id, type: 'test', createdAt: '2026-03-02T09:00:00.000Z', data: { webhookId: 'wh_1', note } },
    receivedAt: '2026-03-02T09:00:01.000Z',
  }
}

async function withQueue<T>(
  options: { now?: () => Date; pruneEveryMs?: number },
  use: (queue: WebhookEventQueue) => Promise<T>,
): Promise<T> {
  const queue = createPostgresWebhookEventQueue({ db: database.db, backend, ...options })
  try {
    return await use(queue)
  } finally {
    await queue.close()
  }
}

async function jobIds(): Promise<string[]> {
  const view = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, backend)
  try {
    return (await view.getJobs(['waiting', 'completed', 'failed', 'active'], 0, -1)).map((j) => j.id!).sort()
  } finally {
    await view.close()
  }
}

async function seen(): Promise<string[]> {
  const rows = await database.db
    .selectFrom('received_events')
    .select('event_id')
    .orderBy('event_id')
    .execute()
  return rows.map((r) => r.event_id)
}

describe('webhook event queue on PostgreSQL', () => {
  it('answers queued once per event id and duplicate for every redelivery, in the same batch or later', async () => {
    await withQueue({}, async (queue) => {
      expect(await queue.addBatch([job('evt_a'), job('evt_b'), job('evt_a')])).toEqual([
        'queued',
        'queued',
        'duplicate',
      ])
      expect(await queue.addBatch([job('evt_b'), job('evt_c')])).toEqual(['duplicate', 'queued'])
      await expect(queue.ping()).resolves.toBeUndefined()
    })
    expect(await jobIds()).toEqual(expect.arrayContaining(['evt_a', 'evt_b', 'evt_c']))
  })

  it('adds jobs a worker processes, with the queue’s retry options', async () => {
    await withQueue({}, (queue) => queue.addBatch([job('evt_worked')]))
    const view = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, backend)
    const stored = await view.getJob('evt_worked')
    await view.close()
    expect([stored?.name, stored?.opts.attempts, stored?.data.event.id]).toEqual(['test', 10, 'evt_worked'])
    let processed: (id: string) => void = () => undefined
    const worked = new Promise<string>((resolve) => (processed = resolve))
    const worker = createBackendWorker<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, backend, async (j) => {
      if (j.id === 'evt_worked') processed(String(j.data.event.id))
    })
    expect(await worked).toBe('evt_worked')
    await worker.close()
  })

  it('marks an event seen and adds its job in one transaction: a failed add leaves no seen mark', async () => {
    // jsonb cannot hold U+0000 (the receiver refuses it at the door; here it stands for any job the queue refuses).
    const poison = job('evt_poison', 'a\u0000b')
    await withQueue({}, async (queue) => {
      await expect(queue.addBatch([job('evt_with_poison'), poison])).rejects.toThrow()
      expect(await seen()).not.toContain('evt_with_poison')
      expect(await seen()).not.toContain('evt_poison')
      expect(await jobIds()).not.toContain('evt_with_poison')
      // Coalesced with the receiver's batching, only the bad event fails; the others are queued.
      const enqueue = createBatchingEnqueue(queue, { windowMs: 5 })
      const results = await Promise.allSettled([
        enqueue(job('evt_good_1')),
        enqueue(poison),
        enqueue(job('evt_good_2')),
      ])
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
      expect(await jobIds()).toEqual(expect.arrayContaining(['evt_good_1', 'evt_good_2']))
      expect(await seen()).not.toContain('evt_poison')
    })
  })

  it('answers duplicate only within the window; a redelivery after it is queued, and old seen marks are pruned', async () => {
    const start = new Date('2026-03-02T09:00:00Z')
    let now = start
    await withQueue({ now: () => now, pruneEveryMs: 0 }, async (queue) => {
      expect(await queue.addBatch([job('evt_old')])).toEqual(['queued'])
      now = new Date(start.getTime() + 71 * 3600_000)
      expect(await queue.addBatch([job('evt_old')])).toEqual(['duplicate'])
      // The job was processed and removed after its retention; the bank redelivers after the window.
      const view = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, backend)
      await (await view.getJob('evt_old'))?.remove()
      await view.close()
      now = new Date(start.getTime() + 73 * 3600_000)
      expect(await queue.addBatch([job('evt_old')])).toEqual(['queued'])
      expect(await jobIds()).toContain('evt_old')
      // A mark past the window is deleted by the next write's prune.
      await queue.addBatch([job('evt_new')])
      now = new Date(start.getTime() + 150 * 3600_000)
      await queue.addBatch([job('evt_newest')])
      expect(await seen()).not.toContain('evt_old')
      expect(await seen()).toContain('evt_newest')
    })
  })
})

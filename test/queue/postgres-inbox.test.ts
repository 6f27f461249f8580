import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  WEBHOOK_EVENTS_QUEUE,
  createBackendQueue,
  createBackendWorker,
  createPostgresInboxForwarder,
  createPostgresWebhookEventQueue,
  type PostgresWebhookEventQueueOptions,
  type WebhookEventQueue,
  type WebhookJob,
  type WebhookJobData,
} from '../../src/queue/index.js'
import { forwardInboxRows } from '../../src/queue/postgres-inbox-rows.js'
import {
  TEST_DATABASE_URL,
  createTestQueueDatabase,
  type TestQueueDatabase,
} from '../support/test-database.js'

// The PostgreSQL queue's inbox (issue 29): under a storm the receiver writes seen marks and inbox rows, and
// forwarders move the rows into BullMQ's job table, each exactly once, whatever crashes in between.

let database: TestQueueDatabase
let backend: TestQueueDatabase['backend']
beforeAll(async () => {
  database = await createTestQueueDatabase('pg_inbox')
  backend = database.backend
})
afterAll(async () => {
  await database?.drop()
})

function job(id: string): WebhookJob {
  const event = { id, type: 'test', createdAt: '2026-03-02T09:00:00.000Z', data: { webhookId: 'wh_1', n: 1 } }
  return {
    eventId: id,
    type: 'test',
    event,
    eventJson: JSON.stringify(event),
    receivedAt: '2026-03-02T09:00:01.000Z',
  }
}

/** A queue in storm mode whose inbox nobody forwards but the test. */
async function withStormQueue<T>(
  use: (queue: WebhookEventQueue) => Promise<T>,
  options: Partial<PostgresWebhookEventQueueOptions> = {},
): Promise<T> {
  const queue = createPostgresWebhookEventQueue({
    db: database.db,
    backend,
    directBelowEventsPerSecond: 0,
    forward: false,
    ...options,
  })
  try {
    return await use(queue)
  } finally {
    await queue.close()
  }
}

/** What another connection sees, so only committed rows count. */
async function committed(): Promise<{ inbox: string[]; seen: string[]; jobs: string[] }> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    const ids = async (query: string) => (await client.query<{ id: string }>(query)).rows.map((r) => r.id)
    return {
      inbox: await ids(`select job_id as id from ${database.schema}.webhook_inbox order by id`),
      seen: await ids(`select event_id as id from ${database.schema}.received_events order by event_id`),
      jobs: await ids(`select id from ${backend.schema}.job order by seq`),
    }
  } finally {
    await client.end()
  }
}

async function eventCount(jobId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::integer as n from ${sql.id(backend.schema)}.event where data->>'jobId' = ${jobId}`.execute(
    database.db,
  )
  return rows[0]!.n
}

/** Resolves with the event ids a worker processes, once it has seen all of `ids`. */
function workerSees(ids: string[], workerOptions: { drainDelay?: number } = {}) {
  const waiting = new Set(ids)
  let done: () => void = () => undefined
  const all = new Promise<void>((resolve) => (done = resolve))
  const processed: string[] = []
  const worker = createBackendWorker<WebhookJobData>(
    WEBHOOK_EVENTS_QUEUE,
    backend,
    async (j) => {
      processed.push(String(j.data.eventId))
      waiting.delete(String(j.data.eventId))
      if (waiting.size === 0) done()
    },
    workerOptions,
  )
  return { worker, all, processed }
}

describe('the PostgreSQL queue’s inbox', () => {
  it('answers queued under a storm only once the seen mark and the inbox row are committed, and adds no job yet', async () => {
    await withStormQueue(async (queue) => {
      expect(await queue.addBatch([job('evt_s1'), job('evt_s2'), job('evt_s1')])).toEqual([
        'queued',
        'queued',
        'duplicate',
      ])
      const seen = await committed()
      expect(seen.inbox).toEqual(['evt_s1', 'evt_s2'])
      expect(seen.seen).toEqual(expect.arrayContaining(['evt_s1', 'evt_s2']))
      expect(seen.jobs).not.toContain('evt_s1')
      expect(await queue.backlog?.()).toBe(2)
    })
    // Left for the next test's forwarder: a receiver that stopped (or crashed) after its answers loses nothing.
  })

  it('forwards rows a stopped receiver left, in arrival order, when a forwarder starts (the sweep of a crash)', async () => {
    const { worker, all, processed } = workerSees(['evt_s1', 'evt_s2'])
    const forwarder = createPostgresInboxForwarder({ db: database.db, backend, sweepEveryMs: 60_000 })
    forwarder.start()
    try {
      await all
      expect(processed).toEqual(['evt_s1', 'evt_s2'])
      expect(await forwarder.backlog()).toBe(0)
    } finally {
      await forwarder.close()
      await worker.close()
    }
  })

  it('wakes a listening forwarder by the inbox write’s NOTIFY, and the forward wakes the workers', async () => {
    // A long drainDelay and sweep: without the notifications nothing would move before the test timed out.
    const first = workerSees(['evt_w1'], { drainDelay: 600 })
    await first.worker.waitUntilReady()
    const forwarder = createPostgresInboxForwarder({ db: database.db, backend, sweepEveryMs: 600_000 })
    forwarder.start()
    try {
      await withStormQueue(async (queue) => {
        expect(await queue.addBatch([job('evt_w1')])).toEqual(['queued'])
        // Moved by the start-up read or the NOTIFY; either way the forwarder listens by now.
        await first.all
        await first.worker.close()
        const second = workerSees(['evt_w2'], { drainDelay: 600 })
        await second.worker.waitUntilReady()
        try {
          expect(await queue.addBatch([job('evt_w2')])).toEqual(['queued'])
          await second.all
        } finally {
          await second.worker.close()
        }
      })
    } finally {
      await forwarder.close()
    }
  })

  it('listens again after its connection dropped, and forwards what came meanwhile', async () => {
    const errors: Error[] = []
    const first = workerSees(['evt_l1'], { drainDelay: 600 })
    await first.worker.waitUntilReady()
    // Named, so only this forwarder's listener is dropped: other test files and the chaos run listen on the
    // same channel in the same database.
    const applicationName = `inbox_listen_${backend.schema}`
    const url = new URL(backend.connectionString)
    url.searchParams.set('application_name', applicationName)
    const forwarder = createPostgresInboxForwarder({
      db: database.db,
      backend: { ...backend, connectionString: url.toString() },
      sweepEveryMs: 600_000,
      onError: (error) => errors.push(error),
    })
    forwarder.start()
    try {
      await withStormQueue(async (queue) => {
        expect(await queue.addBatch([job('evt_l1')])).toEqual(['queued'])
        await first.all
        await first.worker.close()
        const { rows } = await sql<{ dropped: boolean }>`
          select pg_terminate_backend(pid) as dropped from pg_stat_activity
           where datname = current_database() and query = 'listen bankrec_webhook_inbox'
             and application_name = ${applicationName}`.execute(database.db)
        expect(rows).toEqual([{ dropped: true }])
        const second = workerSees(['evt_l2'], { drainDelay: 600 })
        await second.worker.waitUntilReady()
        try {
          expect(await queue.addBatch([job('evt_l2')])).toEqual(['queued'])
          await second.all
        } finally {
          await second.worker.close()
        }
      })
    } finally {
      await forwarder.close()
    }
    expect(errors.length).toBeGreaterThan(0)
  })

  it('keeps the rows when a forward rolls back (a crash before its commit), and a later one moves them once', async () => {
    await withStormQueue((queue) => queue.addBatch([job('evt_r1'), job('evt_r2')]))
    await expect(
      database.db.transaction().execute(async (trx) => {
        const { rows } = await forwardInboxRows({
          queueSchema: backend.schema,
          limit: 10,
          timestampMs: Date.now(),
        }).execute(trx)
        expect(rows[0]?.taken).toBe(2)
        throw new Error('crash before commit')
      }),
    ).rejects.toThrow('crash before commit')
    let seen = await committed()
    expect(seen.inbox).toEqual(['evt_r1', 'evt_r2'])
    expect(seen.jobs).not.toContain('evt_r1')
    const forwarder = createPostgresInboxForwarder({ db: database.db, backend })
    try {
      expect(await forwarder.forwardPending()).toBe(2)
      expect(await forwarder.forwardPending()).toBe(0)
    } finally {
      await forwarder.close()
    }
    seen = await committed()
    expect(seen.inbox).toEqual([])
    expect(seen.jobs.filter((id) => id.startsWith('evt_r'))).toEqual(['evt_r1', 'evt_r2'])
    expect(await eventCount('evt_r1')).toBe(2)
  })

  it('forwards every row into exactly one job with forwarders running side by side', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `evt_many_${String(i).padStart(3, '0')}`)
    await withStormQueue(async (queue) => {
      expect(await queue.addBatch(ids.map(job))).toEqual(ids.map(() => 'queued'))
    })
    const forwarders = [1, 2, 3].map(() =>
      createPostgresInboxForwarder({ db: database.db, backend, batchSize: 16 }),
    )
    try {
      const moved = await Promise.all(forwarders.map((f) => f.forwardPending()))
      expect(moved.reduce((a, b) => a + b, 0)).toBe(ids.length)
    } finally {
      await Promise.all(forwarders.map((f) => f.close()))
    }
    const { rows } = await sql<{ id: string; n: number }>`
      select id, count(*)::integer as n from ${sql.id(backend.schema)}.job where id like 'evt_many_%' group by id`.execute(
      database.db,
    )
    expect(rows).toHaveLength(ids.length)
    expect(rows.every((r) => r.n === 1)).toBe(true)
    expect((await committed()).inbox).toEqual([])
    const view = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, backend)
    try {
      const stored = await view.getJob('evt_many_042')
      expect([stored?.name, stored?.opts.attempts, stored?.data.event.id]).toEqual([
        'test',
        10,
        'evt_many_042',
      ])
    } finally {
      await view.close()
    }
  })

  it('answers a redelivery duplicate whichever way the first delivery went, before and after forwarding', async () => {
    const quiet = createPostgresWebhookEventQueue({
      db: database.db,
      backend,
      directBelowEventsPerSecond: Number.MAX_SAFE_INTEGER,
      forward: false,
    })
    try {
      await withStormQueue(async (storm) => {
        expect(await storm.addBatch([job('evt_d1')])).toEqual(['queued'])
        expect(await quiet.addBatch([job('evt_d1'), job('evt_d2')])).toEqual(['duplicate', 'queued'])
        expect(await storm.addBatch([job('evt_d1'), job('evt_d2')])).toEqual(['duplicate', 'duplicate'])
        const forwarder = createPostgresInboxForwarder({ db: database.db, backend })
        try {
          expect(await forwarder.forwardPending()).toBe(1)
        } finally {
          await forwarder.close()
        }
        expect(await storm.addBatch([job('evt_d1')])).toEqual(['duplicate'])
        expect(await quiet.addBatch([job('evt_d1')])).toEqual(['duplicate'])
      })
    } finally {
      await quiet.close()
    }
    const seen = await committed()
    expect(seen.jobs.filter((id) => id.startsWith('evt_d')).sort()).toEqual(['evt_d1', 'evt_d2'])
    expect(await eventCount('evt_d1')).toBe(2)
  })

  it('takes the inbox once events arrive faster than the rate, by default 500 a second', async () => {
    const ids = Array.from({ length: 600 }, (_, i) => `evt_rate_${i}`)
    const queue = createPostgresWebhookEventQueue({ db: database.db, backend, forward: false })
    try {
      expect(await queue.addBatch([job('evt_rate_quiet')])).toEqual(['queued'])
      expect((await committed()).jobs).toContain('evt_rate_quiet')
      // This batch alone passes the rate.
      expect(await queue.addBatch(ids.map(job))).toEqual(ids.map(() => 'queued'))
      const seen = await committed()
      expect(seen.inbox).toHaveLength(ids.length)
      expect(seen.jobs).not.toContain('evt_rate_0')
    } finally {
      await queue.close()
    }
    const forwarder = createPostgresInboxForwarder({ db: database.db, backend })
    try {
      expect(await forwarder.forwardPending()).toBe(ids.length)
    } finally {
      await forwarder.close()
    }
  })
})

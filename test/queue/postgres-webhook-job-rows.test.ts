import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  createBackendQueue,
  createBackendWorker,
  createPostgresWebhookEventQueue,
  jobIdFor,
  webhookJobData,
  type WebhookJob,
  type WebhookJobData,
} from '../../src/queue/index.js'
import { createTestQueueDatabase, type TestQueueDatabase } from '../support/test-database.js'

// The receiver's set-based write on the PostgreSQL queue (src/queue/postgres-webhook-job-rows.ts) writes the rows
// BullMQ's own add writes, so the workers, the dashboard and BullMQ's tools see the same jobs and events.

let database: TestQueueDatabase
let backend: TestQueueDatabase['backend']
beforeAll(async () => {
  database = await createTestQueueDatabase('pg_job_rows')
  backend = database.backend
})
afterAll(async () => {
  await database?.drop()
})

function job(eventId: string, extra: Partial<WebhookJob> = {}): WebhookJob {
  const event = {
    id: eventId,
    type: 'transactions.sync_available',
    data: { connectionId: 'conn-1', amount: 12.5 },
  }
  return {
    eventId,
    type: event.type,
    event,
    eventJson: JSON.stringify(event),
    receivedAt: '2026-03-02T09:00:01.000Z',
    ...extra,
  }
}

type JobRow = Record<string, unknown> & { id: string; data: WebhookJobData; opts: Record<string, unknown> }

async function jobRow(id: string): Promise<JobRow> {
  const { rows } = await sql<JobRow>`select * from ${sql.id(backend.schema)}.job where id = ${id}`.execute(
    database.db,
  )
  expect(rows).toHaveLength(1)
  return rows[0]!
}

async function eventsOf(id: string): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const { rows } = await sql<{ event: string; data: Record<string, unknown> }>`
    select event, data from ${sql.id(backend.schema)}.event where data->>'jobId' = ${id} order by id`.execute(
    database.db,
  )
  return rows
}

/** A job row with what differs between two adds of two events left out: ids, order and times. */
function comparable(row: JobRow): Record<string, unknown> {
  const { id: _id, seq: _seq, added_at_ms: _added, data, opts, ...rest } = row
  const { jobId: _jobId, ...sameOpts } = opts
  const { eventId: _eventId, event, ...sameData } = data
  return { ...rest, opts: sameOpts, data: { ...sameData, event: { ...event, id: 'x' } } }
}

describe('the receiver’s job rows on the PostgreSQL queue', () => {
  it('are the rows and events BullMQ’s own add writes for the same job', async () => {
    const reference = job('evt_by_bullmq', {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    })
    const ours = job('evt_by_receiver', { traceparent: reference.traceparent })
    const bullmq = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, backend, WEBHOOK_JOB_OPTIONS)
    const queue = createPostgresWebhookEventQueue({ db: database.db, backend })
    try {
      await bullmq.add(reference.type, webhookJobData(reference), {
        ...WEBHOOK_JOB_OPTIONS,
        jobId: jobIdFor(reference.eventId),
      })
      expect(await queue.addBatch([ours])).toEqual(['queued'])
    } finally {
      await queue.close()
      await bullmq.close()
    }
    const [theirs, mine] = [await jobRow('evt_by_bullmq'), await jobRow('evt_by_receiver')]
    expect(comparable(mine)).toEqual(comparable(theirs))
    expect(mine.opts.jobId).toBe('evt_by_receiver')
    expect(mine.data).toEqual(webhookJobData(ours))
    expect(Number(mine.seq)).toBeGreaterThan(Number(theirs.seq))
    const events = (await eventsOf('evt_by_bullmq')).map((e) => ({ ...e, data: { ...e.data, jobId: 'x' } }))
    expect(
      (await eventsOf('evt_by_receiver')).map((e) => ({ ...e, data: { ...e.data, jobId: 'x' } })),
    ).toEqual(events)
    expect(events.map((e) => e.event)).toEqual(['added', 'waiting'])
  })

  it('give a job id BullMQ reserves its digest, and leave a job already kept under the id as it is', async () => {
    const queue = createPostgresWebhookEventQueue({ db: database.db, backend })
    try {
      expect(await queue.addBatch([job('4711'), job('ns:evt_colon')])).toEqual(['queued', 'queued'])
    } finally {
      await queue.close()
    }
    expect((await jobRow(jobIdFor('4711'))).data.eventId).toBe('4711')
    expect((await jobRow(jobIdFor('ns:evt_colon'))).data.eventId).toBe('ns:evt_colon')
    // The seen mark is gone (past the window and pruned) but the finished job is still kept under its id.
    await sql`delete from received_events where event_id = '4711'`.execute(database.db)
    const again = createPostgresWebhookEventQueue({ db: database.db, backend })
    try {
      expect(await again.addBatch([job('4711', { receivedAt: '2026-03-05T09:00:00.000Z' })])).toEqual([
        'queued',
      ])
    } finally {
      await again.close()
    }
    expect((await jobRow(jobIdFor('4711'))).data.receivedAt).toBe('2026-03-02T09:00:01.000Z')
    expect(await eventsOf(jobIdFor('4711'))).toHaveLength(2)
  })

  it('wake a worker that waits for jobs (the NOTIFY after the write)', async () => {
    let processed: (id: string) => void = () => undefined
    const worked = new Promise<string>((resolve) => (processed = resolve))
    // A long drainDelay: without the notification the waiting worker would not look again before the test timed out.
    const worker = createBackendWorker<WebhookJobData>(
      WEBHOOK_EVENTS_QUEUE,
      backend,
      async (j) => {
        if (j.data.eventId === 'evt_wakes') processed(j.data.eventId)
      },
      { drainDelay: 600 },
    )
    await worker.waitUntilReady()
    const queue = createPostgresWebhookEventQueue({ db: database.db, backend })
    try {
      expect(await queue.addBatch([job('evt_wakes')])).toEqual(['queued'])
      expect(await worked).toBe('evt_wakes')
    } finally {
      await queue.close()
      await worker.close()
    }
  })
})

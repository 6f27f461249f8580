import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  WEBHOOK_EVENTS_QUEUE,
  createBackendQueue,
  createPostgresWebhookEventQueue,
  type QueueBackendConfig,
  type WebhookJob,
  type WebhookJobData,
} from '../../src/queue/index.js'
import { TEST_DATABASE_URL, createTestDatabase, type TestDatabase } from '../support/test-database.js'

// The receiver's batch writes as named prepared statements (the `pool` option, as `bankrec receiver` runs them):
// the same answers and rows as the unnamed statement through Kysely, parsed once per connection.

let database: TestDatabase
let backend: Extract<QueueBackendConfig, { kind: 'postgres' }>
let pool: pg.Pool
beforeAll(async () => {
  database = await createTestDatabase('pg_prepared_write')
  backend = { kind: 'postgres', connectionString: TEST_DATABASE_URL, schema: `${database.schema}_queue` }
  // One connection, so the prepared statements it lists are the ones the writes used.
  pool = new pg.Pool({
    connectionString: TEST_DATABASE_URL,
    max: 1,
    options: `-c search_path=${database.schema}`,
  })
})
afterAll(async () => {
  await pool?.end()
  await database?.db.schema.dropSchema(`${database?.schema}_queue`).ifExists().cascade().execute()
  await database?.drop()
})

function job(id: string): WebhookJob {
  const event = { id, type: 'test', createdAt: '2026-03-02T09:00:00.000Z', data: { note: 'x' } }
  return {
    eventId: id,
    type: 'test',
    event,
    eventJson: JSON.stringify(event),
    receivedAt: '2026-03-02T09:00:01.000Z',
  }
}

async function prepared(): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    `select name from pg_prepared_statements where name like 'bankrec_batch_%' order by name`,
  )
  return rows.map((row) => row.name)
}

async function jobIds(): Promise<string[]> {
  const view = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, backend)
  try {
    return (await view.getJobs(['waiting'], 0, -1)).map((j) => j.id!).sort()
  } finally {
    await view.close()
  }
}

describe('the PostgreSQL queue’s batch writes as named prepared statements', () => {
  it('adds jobs directly when quiet, with the answers and rows of the unnamed write, parsed once', async () => {
    const queue = createPostgresWebhookEventQueue({ db: database.db, pool, backend, forward: false })
    try {
      expect(await queue.addBatch([job('evt_q1'), job('evt_q2'), job('evt_q1')])).toEqual([
        'queued',
        'queued',
        'duplicate',
      ])
      expect(await queue.addBatch([job('evt_q2'), job('evt_q3')])).toEqual(['duplicate', 'queued'])
      expect(await prepared()).toHaveLength(1)
    } finally {
      await queue.close()
    }
    expect(await jobIds()).toEqual(['evt_q1', 'evt_q2', 'evt_q3'])
    // The unnamed write through Kysely sees the same seen marks.
    const unnamed = createPostgresWebhookEventQueue({ db: database.db, backend, forward: false })
    try {
      expect(await unnamed.addBatch([job('evt_q3'), job('evt_q4')])).toEqual(['duplicate', 'queued'])
    } finally {
      await unnamed.close()
    }
  })

  it('writes the inbox under a storm, under its own statement', async () => {
    const queue = createPostgresWebhookEventQueue({
      db: database.db,
      pool,
      backend,
      forward: false,
      directBelowEventsPerSecond: 0,
    })
    try {
      expect(await queue.addBatch([job('evt_s1'), job('evt_q1'), job('evt_s2')])).toEqual([
        'queued',
        'duplicate',
        'queued',
      ])
      expect(await queue.addBatch([job('evt_s2'), job('evt_s3')])).toEqual(['duplicate', 'queued'])
      expect(await queue.backlog!()).toBe(3)
    } finally {
      await queue.close()
    }
    const { rows } = await sql<{ job_id: string }>`select job_id from webhook_inbox order by id`.execute(
      database.db,
    )
    expect(rows.map((row) => row.job_id)).toEqual(['evt_s1', 'evt_s2', 'evt_s3'])
    // The direct write's statement and the inbox write's, each parsed once on the one connection.
    expect(await prepared()).toHaveLength(2)
  })
})

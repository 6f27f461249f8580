import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresWebhookEventQueue, type WebhookJob } from '../../src/queue/index.js'
import { waitUntil } from '../support/chaos/wait-until.js'
import { dropSidecarSchemas, TEST_DATABASE_URL } from '../support/test-database.js'
import { startTestSidecar } from './sidecar-fixture.js'

// The worker role on the PostgreSQL queue forwards the receiver's inbox (issue 29): what a storm leaves in
// `webhook_inbox` is processed, and a stopping worker forwards what is left before it exits.

type TestSidecar = Awaited<ReturnType<typeof startTestSidecar>>
let sidecar: TestSidecar | undefined
beforeAll(async () => {
  // Empty counts as unset: the queues live in PostgreSQL.
  sidecar = await startTestSidecar('pg_inbox_workers', ['receiver', 'worker'], { REDIS_URL: '' })
})
afterAll(async () => {
  await sidecar?.close()
  if (sidecar) await dropSidecarSchemas(sidecar.schema)
})

function testJob(): WebhookJob {
  const id = `evt_${randomUUID()}`
  const event = {
    id,
    type: 'test',
    createdAt: new Date().toISOString(),
    apiVersion: 'v1',
    data: { webhookId: 'wh' },
  }
  return {
    eventId: id,
    type: 'test',
    event,
    eventJson: JSON.stringify(event),
    receivedAt: new Date().toISOString(),
  }
}

/** Writes the jobs as the receiver does under a storm: seen marks and inbox rows, nobody forwarding but the workers. */
async function stormWrite(target: TestSidecar, jobs: WebhookJob[]): Promise<void> {
  const { backend, store } = target.context
  if (backend.kind !== 'postgres') throw new Error(`the sidecar runs its queues on ${backend.kind}`)
  const queue = createPostgresWebhookEventQueue({
    db: store.db,
    backend,
    directBelowEventsPerSecond: 0,
    forward: false,
  })
  try {
    expect(await queue.addBatch(jobs)).toEqual(jobs.map(() => 'queued'))
  } finally {
    await queue.close()
  }
}

describe('the worker role on the PostgreSQL queue', () => {
  it('forwards the inbox a storm left, and the workers process every event once', async () => {
    const target = sidecar!
    const jobs = Array.from({ length: 40 }, testJob)
    await stormWrite(target, jobs)
    const ids = jobs.map((j) => j.eventId)
    const processed = await waitUntil(
      'every event of the storm processed',
      async () => {
        const rows = await target.context.store.db
          .selectFrom('processed_events')
          .select('event_id')
          .where('event_id', 'in', ids)
          .execute()
        return rows.length === ids.length && rows
      },
      { timeoutMs: 30_000 },
    )
    expect(processed.map((r) => r.event_id).sort()).toEqual([...ids].sort())
    const { rows } = await sql<{ n: number }>`select count(*)::integer as n from webhook_inbox`.execute(
      target.context.store.db,
    )
    expect(rows[0]?.n).toBe(0)
  })

  it('forwards what is left in the inbox when it stops', async () => {
    const target = await startTestSidecar('pg_inbox_stop', ['worker'], { REDIS_URL: '' })
    const { backend } = target.context
    const jobs = Array.from({ length: 20 }, testJob)
    try {
      await stormWrite(target, jobs)
    } finally {
      await target.close()
    }
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await client.connect()
    try {
      const inbox = await client.query(`select 1 from ${target.schema}.webhook_inbox`)
      expect(inbox.rowCount).toBe(0)
      const schema = backend.kind === 'postgres' ? backend.schema : ''
      const queued = await client.query<{ id: string }>(`select id from "${schema}".job where id = any($1)`, [
        jobs.map((j) => j.eventId),
      ])
      expect(queued.rowCount).toBe(jobs.length)
    } finally {
      await client.end()
      await dropSidecarSchemas(target.schema)
    }
  })
})

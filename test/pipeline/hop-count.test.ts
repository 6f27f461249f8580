import { Redis } from 'ioredis'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import {
  APP_EVENTS_QUEUE,
  CONNECTION_SYNC_QUEUE,
  isRefreshJobId,
  MATCHING_QUEUE,
  WEBHOOK_EVENTS_QUEUE,
  type QueueBackendConfig,
} from '../../src/queue/index.js'
import { startIdlePipeline, type IdlePipeline } from '../support/one-paid-delivery.js'
import { TEST_DATABASE_URL } from '../support/test-database.js'

const PIPELINE_QUEUES = [WEBHOOK_EVENTS_QUEUE, CONNECTION_SYNC_QUEUE, MATCHING_QUEUE, APP_EVENTS_QUEUE]

/**
 * Jobs ever added to each queue, read from the queue's own event stream ('added'), leaving out the jobs of the
 * schedules (ids `repeat:…`) and owed re-reads. The stream is BullMQ's on both backends: a Redis stream, or the
 * queue schema's event table.
 */
async function jobsAdded(backend: QueueBackendConfig): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  if (backend.kind === 'redis') {
    const redis = new Redis(backend.url)
    try {
      for (const queue of PIPELINE_QUEUES) {
        const entries = await redis.xrange(`${backend.prefix}:${queue}:events`, '-', '+')
        counts[queue] = entries.filter(([, fields]) => {
          const event = Object.fromEntries(
            fields.flatMap((_, i) => (i % 2 ? [] : [[fields[i], fields[i + 1]]])),
          )
          return event.event === 'added' && onThePath(String(event.jobId))
        }).length
      }
    } finally {
      redis.disconnect()
    }
    return counts
  }
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    for (const queue of PIPELINE_QUEUES) {
      const { rows } = await client.query<{ job_id: string }>(
        `select data->>'jobId' as job_id from "${backend.schema}".event where queue = $1 and event = 'added'`,
        [queue],
      )
      counts[queue] = rows.filter((row) => onThePath(row.job_id)).length
    }
  } finally {
    await client.end()
  }
  return counts
}

/** Not a schedule's job (`repeat:…`) nor a re-read a caught-up run owed (after the path: docs/architecture.md). */
const onThePath = (jobId: string) => !jobId.startsWith('repeat:') && !isRefreshJobId(jobId)

const hops = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(PIPELINE_QUEUES.map((queue) => [queue, after[queue]! - before[queue]!]))

describe.each(['redis', 'postgres'] as const)(
  'hops from sync_available to invoice.paid (%s queue)',
  (kind) => {
    let pipeline: IdlePipeline | undefined

    afterAll(async () => {
      await pipeline?.close()
    })

    it('adds only the webhook event job when no lock is taken: sync, matching and the app events happen in place', async () => {
      pipeline = await startIdlePipeline(`hops_${kind}`, kind)
      const before = await jobsAdded(pipeline.backend)
      const appEventsBefore = (await pipeline.appEvents()).length

      await pipeline.payAndAwaitInvoicePaid()
      const told = (await pipeline.appEvents()).length - appEventsBefore
      expect(told).toBeGreaterThanOrEqual(1)

      // One signed delivery, synced and matched by the worker that took it, its app events sent by the process
      // their NOTIFY reached: no sync job, no matching job, no app-event job.
      expect(hops(before, await jobsAdded(pipeline.backend))).toEqual({
        [WEBHOOK_EVENTS_QUEUE]: 1,
        [CONNECTION_SYNC_QUEUE]: 0,
        [MATCHING_QUEUE]: 0,
        [APP_EVENTS_QUEUE]: 0,
      })
    }, 90_000)
  },
)

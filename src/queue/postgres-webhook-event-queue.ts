import { sql, type Kysely } from 'kysely'
import { assertSchemaName, type Database } from '../store/index.js'
import { createBackendQueue, type QueueBackendConfig } from './backend.js'
import {
  DEDUPE_TTL_SECONDS,
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  type EnqueueResult,
  type WebhookEventQueue,
  type WebhookJob,
  type WebhookJobData,
} from './catalogue.js'
import { wakeWorkers, webhookJobEntries, writeWebhookJobRows } from './postgres-webhook-job-rows.js'

export type PostgresWebhookEventQueueOptions = {
  db: Kysely<Database>
  backend: Extract<QueueBackendConfig, { kind: 'postgres' }>
  /** How long an event id counts as seen. @defaultValue DEDUPE_TTL_SECONDS (72 hours) */
  dedupeTtlSeconds?: number
  /** How often seen ids past the window are deleted, at most. @defaultValue one hour */
  pruneEveryMs?: number
  /** @defaultValue the system time */
  now?: () => Date
}

/**
 * The webhook event queue on BullMQ's PostgreSQL backend (runs without REDIS_URL). Each batch is ONE statement
 * (issue 17, finding 13): the event ids are marked seen and the jobs of the fresh ones added together, set-based,
 * on bankrec's connection (writeWebhookJobRows: the rows BullMQ's own batched add writes), and the workers are
 * woken after it commits. So "duplicate" always means "queued before": never a seen mark without its job (a crash
 * rolls both back), never a job added for an event answered duplicate. A seen mark older than the dedupe window
 * counts as absent and is pruned; a redelivery after it is queued again, and a job still kept under the same id
 * (job id = event id) is left as it is, while the worker's processed-events claim keeps its effects once.
 */
export function createPostgresWebhookEventQueue(
  options: PostgresWebhookEventQueueOptions,
): WebhookEventQueue {
  const queue = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, options.backend, WEBHOOK_JOB_OPTIONS)
  const schema = assertSchemaName(options.backend.schema)
  const windowMs = (options.dedupeTtlSeconds ?? DEDUPE_TTL_SECONDS) * 1000
  const pruneEveryMs = options.pruneEveryMs ?? 60 * 60 * 1000
  const now = options.now ?? (() => new Date())
  // The backend migrates its schema when it connects; the first write waits for that.
  let ready: Promise<unknown> | undefined
  let prunedAt = Number.NEGATIVE_INFINITY

  // One wake-up in flight at a time; batches that commit meanwhile get one more after it. Not awaited by the write:
  // a wake-up that fails costs the workers only their poll interval (BullMQ's drainDelay), never an event.
  let waking: Promise<void> | undefined
  let wakeAgain = false
  const wake = (): void => {
    if (waking) {
      wakeAgain = true
      return
    }
    waking = wakeWorkers()
      .execute(options.db)
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        waking = undefined
        if (wakeAgain) {
          wakeAgain = false
          wake()
        }
      })
  }

  const prune = async (at: Date): Promise<void> => {
    if (at.getTime() - prunedAt < pruneEveryMs) return
    prunedAt = at.getTime()
    await options.db
      .deleteFrom('received_events')
      .where('received_at', '<', new Date(at.getTime() - windowMs))
      .execute()
  }

  return {
    async addBatch(jobs) {
      if (jobs.length === 0) return []
      await (ready ??= queue.waitUntilReady().catch((error: unknown) => {
        ready = undefined
        throw error
      }))
      const at = now()
      const cutoff = new Date(at.getTime() - windowMs)
      // The first delivery of each event id in the batch; a repeat within it is a duplicate of that one.
      const firsts = new Map<string, WebhookJob>()
      for (const job of jobs) if (!firsts.has(job.eventId)) firsts.set(job.eventId, job)
      const { rows } = await writeWebhookJobRows({
        entries: webhookJobEntries(firsts.values()),
        queueSchema: schema,
        at,
        cutoff,
        timestampMs: Date.now(),
      }).execute(options.db)
      const fresh = new Set(rows.map((row) => row.event_id))
      if (fresh.size > 0) wake()
      const results = jobs.map((job): EnqueueResult => (fresh.delete(job.eventId) ? 'queued' : 'duplicate'))
      // Outside the write: a prune that fails costs nothing but a later retry.
      await prune(at).catch(() => undefined)
      return results
    },
    async ping() {
      await sql`select 1`.execute(options.db)
    },
    async close() {
      while (waking) await waking
      await queue.close()
    },
  }
}

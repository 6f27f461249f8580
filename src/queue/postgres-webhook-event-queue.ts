import { Job } from 'bullmq'
import { sql, type Kysely } from 'kysely'
import { assertSchemaName, type Database } from '../store/index.js'
import { createBackendQueue, type QueueBackendConfig } from './backend.js'
import {
  DEDUPE_TTL_SECONDS,
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  jobIdFor,
  type EnqueueResult,
  type WebhookEventQueue,
  type WebhookJob,
  type WebhookJobData,
} from './catalogue.js'

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

/** The batch entry BullMQ's PostgreSQL backend builds for `add_jobs_bulk` (its own method, so the format is its). */
type BatchEntryBuilder = {
  toBatchEntry(
    queueName: string,
    job: ReturnType<Job['asJSON']>,
    jobId: string,
    parentKeyOpts: object,
  ): object
}

/**
 * The webhook event queue on BullMQ's PostgreSQL backend (runs without REDIS_URL). Each batch is ONE transaction
 * (issue 17, finding 13): the event ids are marked seen and the jobs of the fresh ones added together, through the
 * backend's own `add_jobs_bulk` on bankrec's connection. So "duplicate" always means "queued before": never a seen
 * mark without its job (a crash rolls both back), never a job added for an event answered duplicate. A seen mark
 * older than the dedupe window counts as absent and is pruned; a redelivery after it is queued again, and a job
 * still kept under the same id (job id = event id) makes that add a no-op, while the worker's processed-events
 * claim keeps its effects once.
 */
export function createPostgresWebhookEventQueue(
  options: PostgresWebhookEventQueueOptions,
): WebhookEventQueue {
  const queue = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, options.backend, WEBHOOK_JOB_OPTIONS)
  const schema = assertSchemaName(options.backend.schema)
  const windowMs = (options.dedupeTtlSeconds ?? DEDUPE_TTL_SECONDS) * 1000
  const pruneEveryMs = options.pruneEveryMs ?? 60 * 60 * 1000
  const now = options.now ?? (() => new Date())
  const backend = queue.backend as unknown as BatchEntryBuilder
  // The backend migrates its schema when it connects; the first write waits for that.
  let ready: Promise<unknown> | undefined
  let prunedAt = Number.NEGATIVE_INFINITY

  const entryOf = (job: WebhookJob): object => {
    const data: WebhookJobData = { event: job.event, receivedAt: job.receivedAt }
    if (job.ignored) data.ignored = job.ignored
    const jobId = jobIdFor(job.eventId)
    const bullJob = new Job(queue, job.type, data, { ...WEBHOOK_JOB_OPTIONS, jobId }, jobId)
    return backend.toBatchEntry(WEBHOOK_EVENTS_QUEUE, bullJob.asJSON(), jobId, {})
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
      const results = await options.db.transaction().execute(async (trx) => {
        const marked = await trx
          .insertInto('received_events')
          .values(
            [...new Set(jobs.map((job) => job.eventId))].map((event_id) => ({
              event_id,
              received_at: at,
            })),
          )
          .onConflict((oc) =>
            oc
              .column('event_id')
              .doUpdateSet({ received_at: at })
              .where('received_events.received_at', '<', cutoff),
          )
          .returning('event_id')
          .execute()
        const fresh = new Set(marked.map((row) => row.event_id))
        const toAdd: WebhookJob[] = []
        const answers = jobs.map((job): EnqueueResult => {
          if (!fresh.delete(job.eventId)) return 'duplicate'
          toAdd.push(job)
          return 'queued'
        })
        if (toAdd.length > 0) {
          const entries = JSON.stringify(toAdd.map(entryOf))
          await sql`select id from ${sql.id(schema)}.add_jobs_bulk(${WEBHOOK_EVENTS_QUEUE}, ${entries}::jsonb) as t(id)`.execute(
            trx,
          )
        }
        return answers
      })
      // Outside the write: a prune that fails costs nothing but a later retry.
      await prune(at).catch(() => undefined)
      return results
    },
    async ping() {
      await sql`select 1`.execute(options.db)
    },
    close: () => queue.close(),
  }
}

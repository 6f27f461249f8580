import { Job } from 'bullmq'
import { sql, type Kysely } from 'kysely'
import { assertSchemaName, type Database } from '../store/index.js'
import { createBackendQueue, type QueueBackendConfig } from './backend.js'
import {
  DEDUPE_TTL_SECONDS,
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  jobIdFor,
  webhookJobData,
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

/** A job as BullMQ's PostgreSQL backend describes it to its SQL functions (its own method, so the format is its). */
type BatchEntryBuilder = {
  toBatchEntry(
    queueName: string,
    job: ReturnType<Job['asJSON']>,
    jobId: string,
    parentKeyOpts: object,
  ): object
}

/**
 * The webhook event queue on BullMQ's PostgreSQL backend (runs without REDIS_URL). Each batch is ONE statement
 * (issue 17, finding 13): the event ids are marked seen and the jobs of the fresh ones added together, through the
 * backend's own `add_job` on bankrec's connection. So "duplicate" always means "queued before": never a seen
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
    const jobId = jobIdFor(job.eventId)
    const bullJob = new Job(queue, job.type, webhookJobData(job), { ...WEBHOOK_JOB_OPTIONS, jobId }, jobId)
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
      // The first delivery of each event id in the batch; a repeat within it is a duplicate of that one.
      const firsts = new Map<string, WebhookJob>()
      for (const job of jobs) if (!firsts.has(job.eventId)) firsts.set(job.eventId, job)
      const entries = JSON.stringify(
        [...firsts.values()].map((job) => ({ eventId: job.eventId, job: entryOf(job) })),
      )
      // One statement, so one commit: the seen marks, and the jobs of the ids newly marked. `add_job` per job, not
      // the backend's `add_jobs_bulk`, which builds two temporary tables per call (~5 ms of the database's CPU).
      const { rows } = await sql<{ event_id: string }>`
        with marked as (
          insert into received_events (event_id, received_at)
          select event_id, ${at} from unnest(${[...firsts.keys()]}::text[]) as event_id
          on conflict (event_id) do update set received_at = excluded.received_at
            where received_events.received_at < ${cutoff}
          returning event_id
        ), added as (
          select ${sql.id(schema)}.add_job(
            x->'job'->>'queue', x->'job'->>'id', x->'job'->>'name', (x->'job'->>'data')::jsonb,
            coalesce(x->'job'->'opts', '{}'::jsonb), (x->'job'->>'priority')::integer,
            (x->'job'->>'delay')::bigint, (x->'job'->>'timestamp')::bigint, (x->'job'->>'attempts')::integer,
            null, null, null, null, null, coalesce((x->'job'->>'lifo')::boolean, false)
          ) as id
          from jsonb_array_elements(${entries}::jsonb) with ordinality as entry(x, ord)
          where x->>'eventId' in (select event_id from marked)
          order by ord
        )
        -- Reading the count is what runs "added": a CTE without data changes runs only when read.
        select event_id, (select count(*) from added) as added from marked
      `.execute(options.db)
      const fresh = new Set(rows.map((row) => row.event_id))
      const results = jobs.map((job): EnqueueResult => (fresh.delete(job.eventId) ? 'queued' : 'duplicate'))
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

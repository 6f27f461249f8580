import { sql, type RawBuilder } from 'kysely'
import {
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  jobIdFor,
  webhookJobData,
  type WebhookJob,
} from './catalogue.js'

// The receiver's write on the PostgreSQL queue as ONE set-based statement: seen marks, BullMQ job rows, their
// events and the wake-up, for a whole batch. Pure: it builds the statement, postgres-webhook-event-queue.ts runs it.

/**
 * The opts of every webhook event job as BullMQ's `Job.asJSON` stores them, less the per-job `jobId` the statement
 * adds (test/queue/postgres-webhook-job-rows.test.ts compares the rows with those BullMQ's own add writes).
 */
const JOB_OPTS = JSON.stringify(WEBHOOK_JOB_OPTIONS)

/**
 * The batch as one JSON array, parsed once by the database: event id, job id, job name and job data per job. Built
 * as one string, each id serialized once (an event id is usually its own job id).
 */
export function webhookJobEntries(jobs: Iterable<WebhookJob>): string {
  let json = ''
  for (const job of jobs) {
    const eventId = JSON.stringify(job.eventId)
    const jobId = jobIdFor(job.eventId)
    json +=
      `${json === '' ? '[' : ','}{"eventId":${eventId},` +
      `"jobId":${jobId === job.eventId ? eventId : JSON.stringify(jobId)},` +
      `"name":${JSON.stringify(job.type)},"data":${webhookJobDataJson(job, eventId)}}`
  }
  return json === '' ? '[]' : `${json}]`
}

/**
 * webhookJobData as JSON, with the event as its delivered text when the job has it (no second serialization; the
 * database parses it into the same jsonb either way). Written field by field, as webhookJobData sets them
 * (src/queue/postgres-webhook-job-rows.test.ts holds the two together).
 */
function webhookJobDataJson(job: WebhookJob, eventId: string): string {
  if (job.eventJson === undefined) return JSON.stringify(webhookJobData(job))
  let json = `{"eventId":${eventId},"receivedAt":${JSON.stringify(job.receivedAt)}`
  if (job.ignored) json += `,"ignored":${JSON.stringify(job.ignored)}`
  if (job.traceparent) json += `,"traceparent":${JSON.stringify(job.traceparent)}`
  return `${json},"event":${job.eventJson}}`
}

/** One batch write's values; the statements take them as parameters (writeValues), so their text is fixed. */
export type WebhookJobRowsWrite = {
  /** webhookJobEntries of the batch: the first delivery of each event id, in order. */
  entries: string
  /** When the seen marks are written; a mark older than `cutoff` counts as absent and is renewed. */
  at: Date
  cutoff: Date
  /** BullMQ's job timestamp (`added_at_ms`). */
  timestampMs: number
}

// The batch writes' parameters, by position: the statements' text depends on the queue's schema alone, so it is
// built once and PostgreSQL can keep it parsed and planned under a name (postgres-webhook-event-queue.ts).
const ENTRIES = sql.raw('$1::jsonb')
const AT = sql.raw('$2::timestamptz')
const CUTOFF = sql.raw('$3::timestamptz')
const TIMESTAMP_MS = sql.raw('$4')

/** The values of writeWebhookJobRows ($1–$4) or, with `inbox`, of writeInboxRows ($1–$3). */
export function writeValues(write: WebhookJobRowsWrite, inbox: boolean): unknown[] {
  return inbox
    ? [write.entries, write.at, write.cutoff]
    : [write.entries, write.at, write.cutoff, write.timestampMs]
}

/**
 * One statement, so one commit: the seen marks (`received_events`, in bankrec's schema on the connection's
 * search_path) and, for the ids newly marked, the rows BullMQ's own batched add (`add_flow`) writes for a job
 * without parent, delay or deduplication: the `job` row (state waiting, FIFO seq from `job_seq`, opts with the
 * job id), the `added` and `waiting` events, and the event stream trimmed to `opts.maxLenEvents` (10,000 by
 * default) every 256 events as `publish_event` does. The notifications the workers wait for are not in it
 * (wakeWorkers, after the commit). It takes BullMQ's producer lock first (`lock_producer_queues`: an obliterate of the queue
 * waits for it). A job id already in the queue is left as it is (ON CONFLICT DO NOTHING), as `add_job` does.
 * Answers the event ids newly marked; set-based, so a batch costs the database one plan instead of one
 * PL/pgSQL add per job (its lock, notification and two event inserts each). `queueSchema` is the schema of
 * BullMQ's PostgreSQL backend (its tables `job`, `event`, `meta`, sequence `job_seq`); the values are
 * writeValues(write, false).
 */
export function writeWebhookJobRows(queueSchema: string): RawBuilder<{ event_id: string }> {
  return sql<{ event_id: string }>`
    with ${markEntries()}, fresh as (
      select id, name, data, ord from entry where event_id in (select event_id from marked)
    ), ${addJobRows(queueSchema, TIMESTAMP_MS)}
    select event_id from marked
  `
}

/**
 * The CTEs `entry` (the batch's entries $1, with their order `ord`) and `marked` (the event ids newly marked seen
 * at $2: absent, or marked before the cutoff $3), shared by the direct write and the inbox write
 * (postgres-inbox-rows.ts).
 */
export function markEntries(): RawBuilder<unknown> {
  return sql`entry as materialized (
      select x->>'eventId' as event_id, x->>'jobId' as id, x->>'name' as name, x->'data' as data, ord
        from jsonb_array_elements(${ENTRIES}) with ordinality as e(x, ord)
    ), marked as (
      insert into received_events (event_id, received_at)
      select event_id, ${AT} from entry
      on conflict (event_id) do update set received_at = excluded.received_at
        where received_events.received_at < ${CUTOFF}
      returning event_id
    )`
}

/**
 * The CTEs that add a BullMQ job for each row of a CTE `fresh` (job id `id`, `name`, `data`, order `ord`) that the
 * statement defines before them: the producer lock, the job rows, their events and the trim (see
 * writeWebhookJobRows); `timestampMs` is BullMQ's job timestamp (`added_at_ms`), a value or a parameter.
 */
export function addJobRows(
  queueSchema: string,
  timestampMs: number | RawBuilder<unknown>,
): RawBuilder<unknown> {
  const q = sql.id(queueSchema)
  // Constants as literals, so the plan depends on nothing else.
  const queue = sql.lit(WEBHOOK_EVENTS_QUEUE)
  const jobSeq = sql.lit(`${queueSchema}.job_seq`)
  return sql`producer as materialized (
      select pg_advisory_xact_lock_shared(hashtext('bullmq:finalization'), hashtext(${queue}))
    ), added as (
      insert into ${q}.job (queue, id, seq, name, state, data, opts, max_attempts, added_at_ms)
      select ${queue}, id, nextval(${jobSeq}::regclass), name, 'waiting', data,
             ${sql.lit(JOB_OPTS)}::jsonb || jsonb_build_object('jobId', id), ${sql.lit(WEBHOOK_JOB_OPTIONS.attempts)},
             ${timestampMs}::bigint
        from (select fresh.* from fresh, producer order by ord) as ordered
      on conflict (queue, id) do nothing
      returning id, name, seq
    ), published as (
      insert into ${q}.event (queue, event, data, created_at_ms)
      select ${queue}, ev.event, ev.data, (extract(epoch from clock_timestamp()) * 1000)::bigint
        from added cross join lateral (values
          (1, 'added', jsonb_build_object('jobId', added.id, 'name', added.name)),
          (2, 'waiting', jsonb_build_object('jobId', added.id))) as ev(n, event, data)
       order by added.seq, ev.n
      returning id
    ), bounds as materialized (
      select min(id) as first, max(id) as last,
             coalesce((select value::integer from ${q}.meta
                        where queue = ${queue} and field = 'opts.maxLenEvents'), 10000) as max_len
        from published
    ), trimmed as (
      delete from ${q}.event
       where queue = ${queue}
         and id <= (select last - max_len from bounds
                     where max_len > 0 and last > max_len and last / 256 > (first - 1) / 256)
         and (select pg_try_advisory_xact_lock(hashtext(${sql.lit(`bullmq:evtrim:${WEBHOOK_EVENTS_QUEUE}`)})))
    )`
}

/**
 * The `bullmq_events` and `bullmq_jobs` notifications BullMQ's add sends, on their own after the jobs committed.
 * PostgreSQL commits every notifying transaction of a database one at a time, WAL flush included, under one lock;
 * inside the write, concurrent batches could not share a flush (group commit) and queued behind each other.
 */
export function wakeWorkers(): RawBuilder<unknown> {
  const queue = sql.lit(WEBHOOK_EVENTS_QUEUE)
  return sql`select pg_notify('bullmq_events', ${queue}), pg_notify('bullmq_jobs', ${queue})`
}

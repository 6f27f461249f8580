import { sql, type RawBuilder } from 'kysely'
import { addJobRows, markEntries } from './postgres-webhook-job-rows.js'

// The receiver's inbox on the PostgreSQL queue (issue 29): under a storm each batch writes only the seen marks and
// one `webhook_inbox` row per new event, close to the least a durable, deduplicated write needs; the workers then
// forward the rows into BullMQ's job table. Pure: it builds the statements, postgres-webhook-event-queue.ts and
// postgres-inbox-forwarder.ts run them.

/** The channel the inbox write notifies after it commits; the payload is the queue's schema. */
export const INBOX_CHANNEL = 'bankrec_webhook_inbox'

/**
 * One statement, so one commit: the seen marks (as writeWebhookJobRows) and, for the ids newly marked, an inbox
 * row each (job id, name, data: what the job row will hold), in batch order. Answers the event ids newly marked.
 * Its values are writeValues(write, true).
 */
export function writeInboxRows(): RawBuilder<{ event_id: string }> {
  return sql<{ event_id: string }>`
    with ${markEntries()}, inboxed as (
      insert into webhook_inbox (job_id, name, data)
      select id, name, data from entry where event_id in (select event_id from marked) order by ord
    )
    select event_id from marked
  `
}

/**
 * One statement, so one commit: takes up to `limit` of the oldest inbox rows no other forwarder holds (FOR UPDATE
 * SKIP LOCKED), deletes them and adds their jobs as the direct write does (addJobRows). A crash before the commit
 * leaves the rows in the inbox and adds nothing; after it, the rows are gone and the jobs are in. A job id still
 * kept in the queue is left as it is. Answers how many rows it took.
 */
export function forwardInboxRows(forward: {
  queueSchema: string
  limit: number
  timestampMs: number
}): RawBuilder<{ taken: number }> {
  return sql<{ taken: number }>`
    with fresh as (
      delete from webhook_inbox
       where id in (select id from webhook_inbox order by id limit ${forward.limit} for update skip locked)
      returning job_id as id, name, data, id as ord
    ), ${addJobRows(forward.queueSchema, forward.timestampMs)}
    select count(*)::integer as taken from fresh
  `
}

/** Wakes the forwarders of the queue in `queueSchema`; sent after an inbox write commits. */
export function wakeForwarders(queueSchema: string): RawBuilder<unknown> {
  return sql`select pg_notify(${sql.lit(INBOX_CHANNEL)}, ${queueSchema})`
}

/** How many rows wait in the inbox. */
export function countInboxRows(): RawBuilder<{ n: number }> {
  return sql<{ n: number }>`select count(*)::integer as n from webhook_inbox`
}

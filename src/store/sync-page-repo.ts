import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from './database.js'
import {
  encodeTransactionRows,
  transactionUpsertStatement,
  type EncodedTransactionRows,
  type TransactionRow,
} from './transactions-repo.js'

export type SyncPageWrite = {
  connectionId: string
  /** The cursor the page was read from: the stream must still be there. */
  from: string
  /** The page's nextCursor, saved with the page. */
  next: string
  /** The rows to upsert, or the same encoded ahead of the write (encodeTransactionRows). */
  upserts: readonly TransactionRow[] | EncodedTransactionRows
  deletes: readonly string[]
  /** Events of the page that fit no dialect: stored with the page, so the cursor never passes one unrecorded. */
  quarantine?: readonly QuarantinedEvent[]
  now: Date
  /** The last page of a sync run (the bank has no more): the stream's last success is `now`. */
  endsRun?: boolean
}

export type QuarantinedEvent = {
  eventId: string | null
  transactionId: string | null
  problem: string
  detail: string
  /** The event as it came (JSON). */
  raw: string
}

export type AppliedSyncPage = {
  deleted: number
  /** The earliest posted date the page's transactions had in the mirror before it changed them. */
  earliestPreviousPostedDate: string | null
}

/**
 * Applies one page of sync events in ONE statement: its upserts and deletes, matching's outbox entry for the
 * transactions it touched (one row holding their ids), the earliest day it changed as owed to the balance proof
 * (`balance_proof_due`), its unreadable events' quarantine rows, and the stream's new cursor (with its last
 * success, on a run's last page).
 * The page, its cursor and its queued matches commit together or not at all (seed rule 6) at the cost of a single
 * round trip. The cursor moves only if it is still `from` (compare-and-swap); if another worker moved it first,
 * nothing of the page is written.
 * @returns what the page changed, or null when the stream was no longer at `from`
 */
export async function applySyncPage(
  db: Kysely<Database>,
  page: SyncPageWrite,
): Promise<AppliedSyncPage | null> {
  const upserts = encodeTransactionRows(page.upserts)
  // Matching's outbox gets every touched id once, as ONE row (transaction_ids): the upserted ids as the upsert
  // returns them (in the page's order), then the deleted ids that were not upserted.
  const upserted = page.deletes.length === 0 ? undefined : new Set(upserts.ids)
  const deletedOnly = [...new Set(page.deletes)].filter((id) => !upserted?.has(id))
  // Every CTE reads the snapshot from before the statement, so `previous` sees the dates the page is replacing. It
  // reads them only for the rows the page replaced (an upsert that updated a row, whose new version holds the
  // lock of the conflict in xmax; a fresh insert's xmax is 0) and deleted (their old values come back from the
  // delete): a new transaction, most of a stream, had no date before. Each replaced row costs one primary-key
  // probe; `id = any(…)` over every touched id made the planner scan the whole mirror per page for mirrors of up
  // to a few hundred thousand rows.
  const { rows } = await sql<{ advanced: number; deleted: number; earliest: string | null }>`
    with cas as (
      update sync_streams
      set cursor = ${page.next}, bootstrap_state = 'streaming', last_error = null, updated_at = ${page.now},
        last_success_at = case when ${page.endsRun === true} then ${page.now}::timestamptz else last_success_at end
      where connection_id = ${page.connectionId} and cursor = ${page.from}
      returning 1
    ), upserted as (
      ${transactionUpsertStatement(upserts, sql`exists (select 1 from cas)`)}
      returning id, xmax <> 0 as replaced
    ), deleted as (
      delete from transactions
      where id = any(${[...page.deletes]}::uuid[]) and exists (select 1 from cas)
      returning posted_date
    ), previous as (
      select min(old.posted_date)::text as earliest from (
        select (select t.posted_date from transactions t where t.id = u.id) as posted_date
        from upserted u where u.replaced
        union all
        select posted_date from deleted
      ) old
    ), owed as (
      insert into balance_proof_due (connection_id, due_from)
      select ${page.connectionId}, d from (
        select least((select earliest from previous)::date, ${upserts.earliestPostedDate}::date) as d
      ) changed
      where d is not null and exists (select 1 from cas)
      on conflict (connection_id) do update set due_from = least(balance_proof_due.due_from, excluded.due_from)
    ), queued as (
      insert into pending_matches (kind, transaction_ids)
      select 'transaction', array(select id from upserted) || ${deletedOnly}::uuid[]
      where ${upserts.ids.length + deletedOnly.length > 0} and exists (select 1 from cas)
    )${quarantined(page)}
    select (select count(*) from cas)::int as advanced, (select count(*) from deleted)::int as deleted,
      (select earliest from previous) as earliest
  `.execute(db)
  const result = rows[0]!
  return result.advanced === 1
    ? { deleted: result.deleted, earliestPreviousPostedDate: result.earliest }
    : null
}

/**
 * The page's unreadable events as a CTE of the page statement, gated on the compare-and-swap; none for a page
 * without any (most pages), whose statement is then smaller to parse and plan.
 */
function quarantined(page: SyncPageWrite): RawBuilder<unknown> {
  if (!page.quarantine?.length) return sql``
  const quarantine = JSON.stringify(
    page.quarantine.map((q) => ({
      event_id: q.eventId && withoutNul(q.eventId),
      transaction_id: q.transactionId,
      problem: q.problem,
      detail: withoutNul(q.detail),
      raw: q.raw,
    })),
  )
  return sql`, quarantined as (
      insert into sync_quarantine (connection_id, event_id, transaction_id, problem, detail, raw, cursor,
        quarantined_at)
      select ${page.connectionId}, q.event_id, q.transaction_id::uuid, q.problem, q.detail, q.raw, ${page.from},
        ${page.now}
      from jsonb_to_recordset(${quarantine}::jsonb)
        as q(event_id text, transaction_id text, problem text, detail text, raw text)
      where exists (select 1 from cas)
      on conflict do nothing
    )`
}

/** PostgreSQL text cannot hold U+0000 (the raw event keeps it, escaped by JSON). */
function withoutNul(text: string): string {
  return text.replaceAll('\u0000', '')
}

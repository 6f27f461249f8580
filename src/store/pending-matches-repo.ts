import { sql, type Kysely } from 'kysely'
import type { Database } from './database.js'
import { isTransferLeg, type MatchTransactionRow } from './matching-repo.js'

export type PendingMatchKind = 'transaction' | 'invoice'

/**
 * Queues transactions or invoices to be matched again. Call it in the transaction that changes them, so a change
 * committed is a change queued (the outbox); duplicates are harmless.
 */
export async function enqueueMatches(
  db: Kysely<Database>,
  kind: PendingMatchKind,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return
  await sql`
    insert into pending_matches (kind, entity_id)
    select ${kind}, id from unnest(${[...new Set(ids)]}::text[]) as id
  `.execute(db)
}

/** Queues the transactions a bootstrap backfill is about to delete (those it did not see). */
export async function enqueueBackfillRemovals(
  db: Kysely<Database>,
  connectionId: string,
  backfillRun: string,
): Promise<void> {
  await sql`
    insert into pending_matches (kind, entity_id)
    select 'transaction', id::text from transactions
    where connection_id = ${connectionId} and (backfill_run is null or backfill_run <> ${backfillRun})
  `.execute(db)
}

export type PendingMatch = { seq: string; kind: PendingMatchKind; entityId: string }

/** An outbox row's entries in order: its one entity, or a sync page's transactions (applySyncPage). */
const ENTRIES = sql`coalesce(transaction_ids::text[], array[entity_id])`
/** How many entries an outbox row holds. */
const ENTRY_COUNT = sql`coalesce(cardinality(transaction_ids), 1)`

/**
 * Takes the oldest queued entries, up to `limit`, out of the outbox, in their order, with the mirrored rows of the
 * transactions among them (as loadMatchTransactions reads them; a transaction not mirrored has none), in the same
 * statement. A sync page's row counts as its transactions: the one the limit falls inside keeps the rest, in place.
 * Call it in the transaction that matches them: a rollback puts them back, and entries queued meanwhile (same ids
 * included) stay queued.
 */
export async function takePendingMatches(
  db: Kysely<Database>,
  limit: number,
): Promise<{ pending: PendingMatch[]; rows: MatchTransactionRow[] }> {
  type Taken = { pending_seq: string; pending_kind: PendingMatchKind; pending_entity_id: string }
  // Each row holds at least one entry, so the first `limit` rows hold every entry to take. `before`: the entries
  // of the rows ahead of a row.
  const result = await sql<Taken & MatchTransactionRow>`
    with head as (
      select seq, kind, ${ENTRIES} as entries,
        sum(${ENTRY_COUNT}) over (order by seq) - ${ENTRY_COUNT} as before
      from (select * from pending_matches order by seq limit ${limit}) oldest
    ), took as (
      select seq, kind, entries, before, before + cardinality(entries) <= ${limit} as whole
      from head where before < ${limit}
    ), removed as (
      delete from pending_matches p using took where p.seq = took.seq and took.whole
      returning p.seq
    ), kept as (
      update pending_matches p set transaction_ids = p.transaction_ids[${limit} - took.before + 1:]
      from took where p.seq = took.seq and not took.whole
      returning p.seq
    ), numbered as (
      select took.seq, took.kind, e.entity_id, took.before + e.n as n
      from took cross join lateral unnest(took.entries) with ordinality as e(entity_id, n)
      where took.seq in (select seq from removed union all select seq from kept) and took.before + e.n <= ${limit}
    )
    select numbered.seq as pending_seq, numbered.kind as pending_kind, numbered.entity_id as pending_entity_id,
      t.*, c.entity_id, ${isTransferLeg('t.id')} as transfer_leg
    from numbered
    left join transactions t
      on t.id = case when numbered.kind = 'transaction' then numbered.entity_id::uuid end
    left join connections c on c.id = t.connection_id
    order by numbered.n
  `.execute(db)
  const pending: PendingMatch[] = []
  const rows = new Map<string, MatchTransactionRow>()
  for (const { pending_seq, pending_kind, pending_entity_id, ...row } of result.rows) {
    pending.push({ seq: pending_seq, kind: pending_kind, entityId: pending_entity_id })
    if (row.id !== null && !rows.has(row.id)) rows.set(row.id, row)
  }
  return { pending, rows: [...rows.values()] }
}

/** How many entries are queued (a sync page's row counts as its transactions). */
export async function countPendingMatches(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select coalesce(sum(${ENTRY_COUNT}), 0) as n from pending_matches
  `.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/**
 * Queues what nothing queued: invoices changed since their state was computed (a hook that never ran), mirrored
 * transactions never matched (mirrored before matching existed) and
 * transactions with allocations, exceptions or references that left the mirror outside a sync page (a purged
 * connection).
 * @returns how many were queued
 */
export async function enqueueUnseenMatches(db: Kysely<Database>, limit: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with queued_entries as (
      select kind, unnest(${ENTRIES}) as entity_id from pending_matches
    ), unseen as (
      select t.id::text as id from transactions t
      where not exists (select 1 from transaction_references r where r.transaction_id = t.id)
        and not exists (select 1 from queued_entries p where p.kind = 'transaction' and p.entity_id = t.id::text)
      limit ${limit}
    ), orphaned as (
      select id from (
        select transaction_id as id from allocations where reversed_at is null
        union select transaction_id from match_exceptions where resolved_at is null and transaction_id is not null
        union select transaction_id from transaction_references
      ) as held
      where not exists (select 1 from transactions t where t.id = held.id)
        and not exists (select 1 from queued_entries p where p.kind = 'transaction' and p.entity_id = held.id::text)
      limit ${limit}
    ), stale_invoices as (
      select i.id from invoices i left join invoice_state s on s.invoice_id = i.id
      where (s.invoice_id is null or s.invoice_version < i.version)
        and not exists (select 1 from queued_entries p where p.kind = 'invoice' and p.entity_id = i.id)
      limit ${limit}
    ), queued as (
      insert into pending_matches (kind, entity_id)
      select 'transaction', id from (select id from unseen union select id::text from orphaned) as ids
      union all select 'invoice', id from stale_invoices
      returning 1
    )
    select count(*)::int as n from queued
  `.execute(db)
  return rows[0]?.n ?? 0
}

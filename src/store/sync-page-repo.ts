import { sql, type Kysely } from 'kysely'
import type { Database } from './database.js'
import { transactionUpsertStatement, type TransactionRow } from './transactions-repo.js'

export type SyncPageWrite = {
  connectionId: string
  /** The cursor the page was read from: the stream must still be there. */
  from: string
  /** The page's nextCursor, saved with the page. */
  next: string
  upserts: readonly TransactionRow[]
  deletes: readonly string[]
  now: Date
}

/**
 * Applies one page of sync events and moves its stream's cursor in ONE statement, so the page and its cursor
 * commit together or not at all (seed rule 6) at the cost of a single round trip. The cursor moves only if it
 * is still `from` (compare-and-swap); if another worker moved it first, nothing of the page is written.
 * @returns the number of deleted rows, or null when the stream was no longer at `from`
 */
export async function applySyncPage(db: Kysely<Database>, page: SyncPageWrite): Promise<number | null> {
  const { rows } = await sql<{ advanced: number; deleted: number }>`
    with cas as (
      update sync_streams
      set cursor = ${page.next}, bootstrap_state = 'streaming', last_error = null, updated_at = ${page.now}
      where connection_id = ${page.connectionId} and cursor = ${page.from}
      returning 1
    ), upserted as (
      ${transactionUpsertStatement(page.upserts, sql`exists (select 1 from cas)`)}
      returning 1
    ), deleted as (
      delete from transactions
      where id = any(${[...page.deletes]}::uuid[]) and exists (select 1 from cas)
      returning 1
    )
    select (select count(*) from cas)::int as advanced, (select count(*) from deleted)::int as deleted
  `.execute(db)
  const result = rows[0]!
  return result.advanced === 1 ? result.deleted : null
}

import type { Kysely, Selectable } from 'kysely'
import type { AccountsTable, Database, TransactionsTable } from './database.js'

export type MirroredTransaction = Selectable<TransactionsTable>
export type MirroredAccount = Selectable<AccountsTable>

export type MirrorFilter = { connectionId?: string; accountId?: string }

/**
 * One page of mirrored transactions in id order after `afterId` (keyset: the cost of a page does not grow with
 * its position, and rows written meanwhile never shift a page).
 */
export async function readTransactionsPage(
  db: Kysely<Database>,
  filter: MirrorFilter,
  afterId: string | null,
  limit: number,
): Promise<MirroredTransaction[]> {
  let query = db.selectFrom('transactions').selectAll().orderBy('id').limit(limit)
  if (filter.connectionId !== undefined) query = query.where('connection_id', '=', filter.connectionId)
  if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId)
  if (afterId !== null) query = query.where('id', '>', afterId)
  return query.execute()
}

/** Every mirrored transaction matching the filter, `pageSize` rows a query, so memory stays flat. */
export async function* streamTransactionPages(
  db: Kysely<Database>,
  filter: MirrorFilter,
  pageSize = 5_000,
): AsyncGenerator<MirroredTransaction[]> {
  let after: string | null = null
  for (;;) {
    const rows = await readTransactionsPage(db, filter, after, pageSize)
    if (rows.length > 0) yield rows
    if (rows.length < pageSize) return
    after = rows.at(-1)!.id
  }
}

/** One page of mirrored accounts in id order after `afterId`. */
export async function readAccountsPage(
  db: Kysely<Database>,
  filter: { connectionId?: string },
  afterId: string | null,
  limit: number,
): Promise<MirroredAccount[]> {
  let query = db.selectFrom('accounts').selectAll().orderBy('id').limit(limit)
  if (filter.connectionId !== undefined) query = query.where('connection_id', '=', filter.connectionId)
  if (afterId !== null) query = query.where('id', '>', afterId)
  return query.execute()
}

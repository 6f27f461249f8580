import type { Insertable, Kysely } from 'kysely'
import type { Transaction } from '../api-client/index.js'
import type { Database, TransactionsTable } from './database.js'

export type TransactionRow = Insertable<TransactionsTable>

/** Bank transaction (API shape) → mirror row. Fields a sparse or partial answer left out are stored as null. */
export function transactionToRow(
  tx: Transaction,
  lastEventId: string | null,
  backfillRun: string | null = null,
): TransactionRow {
  return {
    id: tx.id,
    connection_id: tx.connectionId,
    account_id: tx.accountId,
    posted_date: tx.postedDate ?? null,
    updated_at: tx.updatedAt ?? null,
    amount: tx.amount ?? null,
    currency: tx.currency ?? null,
    description: tx.description ?? null,
    raw_description: tx.rawDescription ?? null,
    customer_reference: tx.customerReference ?? null,
    bank_reference: tx.bankReference ?? null,
    payment_reference: tx.paymentReference ?? null,
    bai_code: tx.baiCode ?? null,
    category: tx.category ?? null,
    subcategory: tx.subcategory ?? null,
    mcc: tx.mcc ?? null,
    merchant_name: tx.merchantName ?? null,
    counterparty_name: tx.counterpartyName ?? null,
    counterparty_account_masked: tx.counterpartyAccountMasked ?? null,
    status: tx.status ?? null,
    entry_type: tx.entryType ?? null,
    rail: tx.rail ?? null,
    last_event_id: lastEventId,
    backfill_run: backfillRun,
  }
}

const UPDATABLE = [
  'connection_id',
  'account_id',
  'posted_date',
  'updated_at',
  'amount',
  'currency',
  'description',
  'raw_description',
  'customer_reference',
  'bank_reference',
  'payment_reference',
  'bai_code',
  'category',
  'subcategory',
  'mcc',
  'merchant_name',
  'counterparty_name',
  'counterparty_account_masked',
  'status',
  'entry_type',
  'rail',
  'last_event_id',
  'backfill_run',
] as const

/** Upserts keyed by transaction id (seed rule 7): applying the same rows again changes nothing. */
export async function upsertTransactions(db: Kysely<Database>, rows: TransactionRow[]): Promise<void> {
  if (rows.length === 0) return
  await db
    .insertInto('transactions')
    .values(rows)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => {
        const set: Record<string, unknown> = { mirrored_at: new Date() }
        for (const column of UPDATABLE) set[column] = eb.ref(`excluded.${column}`)
        return set as never
      }),
    )
    .execute()
}

export async function deleteTransactions(db: Kysely<Database>, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  const result = await db.deleteFrom('transactions').where('id', 'in', ids).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function deleteConnectionTransactions(
  db: Kysely<Database>,
  connectionId: string,
): Promise<void> {
  await db.deleteFrom('transactions').where('connection_id', '=', connectionId).execute()
}

/** After a full backfill: deletes the connection's rows that backfill did not see (gone at the bank). */
export async function deleteTransactionsNotInBackfill(
  db: Kysely<Database>,
  connectionId: string,
  backfillRun: string,
): Promise<number> {
  const result = await db
    .deleteFrom('transactions')
    .where('connection_id', '=', connectionId)
    .where((eb) => eb.or([eb('backfill_run', 'is', null), eb('backfill_run', '!=', backfillRun)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

import { type Kysely } from 'kysely'
import type { Evidence } from '../matcher/index.js'
import type { Database } from './database.js'
import type { MatchExceptionRow } from './matching-repo.js'

export type ExceptionWrite = {
  key: string
  type: string
  transactionId: string | null
  transferId: string | null
  invoiceIds: string[]
  amount: string | null
  confidence: number | null
  settled: boolean
  reasons: string[]
  evidence: Evidence[]
}

/**
 * Opens an exception, reopens a resolved one with the same key, or refreshes an open one.
 * @returns the row and whether it was opened (or reopened) by this call
 */
export async function openException(
  db: Kysely<Database>,
  exception: ExceptionWrite,
  existing: MatchExceptionRow | undefined,
  at: Date,
): Promise<{ row: MatchExceptionRow; opened: boolean }> {
  const values = {
    type: exception.type,
    transaction_id: exception.transactionId,
    transfer_id: exception.transferId,
    invoice_ids: exception.invoiceIds,
    amount: exception.amount,
    confidence: exception.confidence,
    settled: exception.settled,
    details: JSON.stringify({ reasons: exception.reasons, evidence: exception.evidence }),
    updated_at: at,
  }
  if (!existing) {
    const row = await db
      .insertInto('match_exceptions')
      .values({ key: exception.key, ...values, opened_at: at })
      .returningAll()
      .executeTakeFirstOrThrow()
    return { row, opened: true }
  }
  const reopening = existing.resolved_at !== null
  const row = await db
    .updateTable('match_exceptions')
    .set({
      ...values,
      ...(reopening
        ? { opened_at: at, resolved_at: null, resolution: null, times_opened: existing.times_opened + 1 }
        : {}),
    })
    .where('key', '=', exception.key)
    .returningAll()
    .executeTakeFirstOrThrow()
  return { row, opened: reopening }
}

export async function resolveException(
  db: Kysely<Database>,
  key: string,
  resolution: string,
  at: Date,
): Promise<void> {
  await db
    .updateTable('match_exceptions')
    .set({ resolved_at: at, resolution, updated_at: at })
    .where('key', '=', key)
    .where('resolved_at', 'is', null)
    .execute()
}

export async function findException(
  db: Kysely<Database>,
  key: string,
): Promise<MatchExceptionRow | undefined> {
  return db.selectFrom('match_exceptions').selectAll().where('key', '=', key).executeTakeFirst()
}

export type ExceptionFilter = {
  type?: string
  /** open (default), resolved or all. */
  state?: 'open' | 'resolved' | 'all'
  transactionId?: string
  invoiceId?: string
}

/** A keyset page of exceptions in key order; `after` is the last key of the previous page. */
export async function listExceptions(
  db: Kysely<Database>,
  filter: ExceptionFilter,
  after: string | null,
  limit: number,
): Promise<MatchExceptionRow[]> {
  let query = db.selectFrom('match_exceptions').selectAll()
  if (filter.type) query = query.where('type', '=', filter.type)
  const state = filter.state ?? 'open'
  if (state === 'open') query = query.where('resolved_at', 'is', null)
  if (state === 'resolved') query = query.where('resolved_at', 'is not', null)
  if (filter.transactionId) query = query.where('transaction_id', '=', filter.transactionId)
  if (filter.invoiceId)
    query = query.where((eb) => eb(eb.val(filter.invoiceId!), '=', eb.fn.any('invoice_ids')))
  if (after) query = query.where('key', '>', after)
  return query.orderBy('key').limit(limit).execute()
}

import { sql, type Kysely } from 'kysely'
import { anyOf } from './any-of.js'
import type { AllocationRow } from './allocations-repo.js'
import type { Database } from './database.js'
import type { DispositionRow } from './dispositions-repo.js'

/** What people decided about some bank lines, as the store records it now (issue 25's trust report). */
export type TrustInputs = {
  transactions: Array<{ id: string; amount: string | null; currency: string | null }>
  /** Allocations in force, anyone's. */
  allocations: AllocationRow[]
  /** A person's matches, removed ones included (amount 0: an unmatch). */
  manualMatches: Array<{
    transaction_id: string
    invoice_id: string
    amount: string
    actor: string | null
    created_at: Date
    removed_at: Date | null
  }>
  dispositions: DispositionRow[]
  rejections: Array<{ transaction_id: string; invoice_ids: string[]; rejected_at: Date }>
  /** Returns the engine made (payment_returned) on these lines, open or resolved. */
  returns: Array<{ key: string; transaction_id: string; resolution: string | null; resolved_at: Date | null }>
  invoiceNumbers: Map<string, string>
}

export async function loadTrustInputs(
  db: Kysely<Database>,
  transactionIds: readonly string[],
  invoiceIds: readonly string[],
): Promise<TrustInputs> {
  const ids = [...new Set(transactionIds)]
  const none = ids.length === 0
  const [transactions, allocations, manualMatches, dispositions, rejections, returns, invoices] =
    await Promise.all([
      none
        ? []
        : db
            .selectFrom('transactions')
            .select(['id', 'amount', 'currency'])
            .where('id', '=', anyOf(ids))
            .execute(),
      none
        ? []
        : db
            .selectFrom('allocations')
            .selectAll()
            .where('transaction_id', '=', anyOf(ids))
            .where('reversed_at', 'is', null)
            .orderBy('id')
            .execute(),
      none
        ? []
        : db
            .selectFrom('manual_matches')
            .select(['transaction_id', 'invoice_id', 'amount', 'actor', 'created_at', 'removed_at'])
            .where('transaction_id', '=', anyOf(ids))
            .orderBy('id')
            .execute(),
      none
        ? []
        : db
            .selectFrom('dispositions')
            .selectAll()
            .where('transaction_id', '=', anyOf(ids))
            .where('status', '=', 'active')
            .orderBy('id')
            .execute(),
      none
        ? []
        : db
            .selectFrom('rejected_suggestions')
            .selectAll()
            .where('transaction_id', '=', anyOf(ids))
            .execute(),
      none
        ? []
        : db
            .selectFrom('match_exceptions')
            .select(['key', 'transaction_id', 'resolution', 'resolved_at'])
            .where('type', '=', 'payment_returned')
            .where('transaction_id', '=', anyOf(ids))
            .$narrowType<{ transaction_id: string }>()
            .execute(),
      invoiceIds.length === 0
        ? []
        : db
            .selectFrom('invoices')
            .select(['id', 'number'])
            .where('id', 'in', [...new Set(invoiceIds)])
            .execute(),
    ])
  return {
    transactions,
    allocations,
    manualMatches,
    dispositions,
    rejections,
    returns,
    invoiceNumbers: new Map(invoices.map((row) => [row.id, row.number])),
  }
}

/**
 * The engine's own allocations (not a person's, not customer credit) of the bank lines it first settled in
 * [from, to), every version of them, oldest first.
 */
export async function engineSettlementsFirstMade(
  db: Kysely<Database>,
  period: { from: Date; to: Date },
): Promise<AllocationRow[]> {
  return db
    .selectFrom('allocations')
    .selectAll()
    .where('made_by', '=', 'engine')
    .where('rule', '!=', 'credit')
    .where(
      'transaction_id',
      'in',
      db
        .selectFrom('allocations')
        .select('transaction_id')
        .where('made_by', '=', 'engine')
        .where('rule', '!=', 'credit')
        .groupBy('transaction_id')
        .having(sql<Date>`min(created_at)`, '>=', period.from)
        .having(sql<Date>`min(created_at)`, '<', period.to),
    )
    .orderBy('id')
    .execute()
}

/** Returns the engine made whose exception opened in [from, to): the outflow, and how each ended. */
export async function returnsOpened(
  db: Kysely<Database>,
  period: { from: Date; to: Date },
): Promise<Array<{ key: string; transaction_id: string; invoice_ids: string[]; resolution: string | null }>> {
  return db
    .selectFrom('match_exceptions')
    .select(['key', 'transaction_id', 'invoice_ids', 'resolution'])
    .where('type', '=', 'payment_returned')
    .where('opened_at', '>=', period.from)
    .where('opened_at', '<', period.to)
    .orderBy('opened_at')
    .$narrowType<{ transaction_id: string }>()
    .execute()
}

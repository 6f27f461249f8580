import type { Kysely } from 'kysely'
import type { Database } from './database.js'

/** Everything that accounts for inflows' money, as stored: the input of the payments-accounted-for check. */
export type PaymentAccountingRows = {
  /** Active inflows (posted or pending) that are no transfer leg. */
  payments: Array<{ id: string; amount: string }>
  allocations: Array<{ transaction_id: string; amount: string; rule: string }>
  dispositions: Array<{ transaction_id: string; amount: string; kind: string }>
  exceptions: Array<{ key: string; type: string; transaction_id: string | null; amount: string | null }>
}

export async function loadPaymentAccounting(db: Kysely<Database>): Promise<PaymentAccountingRows> {
  const payments = await db
    .selectFrom('transactions')
    .select(['id', 'amount'])
    .where('status', 'in', ['posted', 'pending'])
    .where('amount', '>', '0')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('transfer_legs')
            .select('transfer_id')
            .where((eb) =>
              eb.or([
                eb('transfer_legs.inflow_transaction_id', '=', eb.ref('transactions.id')),
                eb('transfer_legs.outflow_transaction_id', '=', eb.ref('transactions.id')),
              ]),
            ),
        ),
      ),
    )
    .orderBy('id')
    .execute()
  const allocations = await db
    .selectFrom('allocations')
    .select(['transaction_id', 'amount', 'rule'])
    .where('reversed_at', 'is', null)
    .execute()
  const dispositions = await db
    .selectFrom('dispositions')
    .select(['transaction_id', 'amount', 'kind'])
    .where('status', '=', 'active')
    // An invoice's write-off holds no part of a payment.
    .where('transaction_id', 'is not', null)
    .$narrowType<{ transaction_id: string }>()
    .execute()
  const exceptions = await db
    .selectFrom('match_exceptions')
    .select(['key', 'type', 'transaction_id', 'amount'])
    .where('resolved_at', 'is', null)
    .execute()
  return {
    payments: payments.map((row) => ({ id: row.id, amount: String(row.amount) })),
    allocations,
    dispositions,
    exceptions,
  }
}

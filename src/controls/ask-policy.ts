import type { Decimal } from 'decimal.js'
import { sql, type Kysely } from 'kysely'
import { countedAgainstThreshold, type Database } from '../store/index.js'
import { decideApproval, type ApprovalDecision, type ApprovalPolicy } from './approval-policy.js'
import { normalizeCurrency } from './currency.js'

/** An operation the policy is asked about: its amount, currency, what it touches and who makes it. */
export type ControlledOperation = {
  amount: Decimal.Value
  currency: string | null | undefined
  invoiceIds: readonly string[]
  transactionId: string | null
  maker: string
  now: Date
}

/**
 * Serialises controlled operations of one schema for the caller's transaction: two makers (or one maker's two
 * requests) cannot both count before either writes. Taken before any invoice row lock, by every caller.
 */
export async function lockControls(trx: Kysely<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended('bankrec.controls:' || current_schema(), 0))`.execute(
    trx,
  )
}

/**
 * Asks the approval policy inside the caller's transaction (which holds the matching lock or the invoice's row
 * lock, so two makers cannot both count before either writes): reads what is already counted, then decides.
 */
export async function askApprovalPolicy(
  trx: Kysely<Database>,
  policy: ApprovalPolicy,
  operation: ControlledOperation,
): Promise<ApprovalDecision> {
  await lockControls(trx)
  const currency = normalizeCurrency(operation.currency)
  const counted =
    policy.threshold === null || currency === null
      ? { invoice: '0', payment: '0', maker: '0' }
      : await countedAgainstThreshold(trx, {
          currency,
          invoiceIds: operation.invoiceIds,
          transactionId: operation.transactionId,
          maker: operation.maker,
          since: new Date(operation.now.getTime() - policy.windowHours * 3_600_000),
        })
  return decideApproval(policy, { amount: operation.amount, currency: operation.currency, counted })
}

import type { Allocator } from './allocate.js'
import type { Payment } from './payment.js'
import { formatUnits, minUnits, toUnits } from './money.js'
import { compareAge } from './invoice-age.js'
import type { MatchTransaction, PaymentDisposition } from './types.js'
import type { LedgerSet } from './ledger-set.js'

/** Each inflow's disposed amount, in money units. */
export function disposedUnits(dispositions: readonly PaymentDisposition[]): Map<string, bigint> {
  const disposed = new Map<string, bigint>()
  for (const item of dispositions) {
    disposed.set(item.transactionId, (disposed.get(item.transactionId) ?? 0n) + toUnits(item.amount))
  }
  return disposed
}

/**
 * The transactions as matching sees them: a person's dispositions took part of an inflow out of receivables
 * (written off, booked to clearing, refunded, kept on account, ignored), so only the rest is matched. An inflow
 * disposed whole takes no part.
 */
export function withoutDisposed(
  transactions: readonly MatchTransaction[],
  disposed: ReadonlyMap<string, bigint>,
): MatchTransaction[] {
  if (disposed.size === 0) return [...transactions]
  return transactions.flatMap((transaction) => {
    const out = disposed.get(transaction.id)
    const amount = toUnits(transaction.amount)
    if (out === undefined || amount <= 0n) return [transaction]
    return amount - out > 0n ? [{ ...transaction, amount: formatUnits(amount - out) }] : []
  })
}

/**
 * Customer credit (a disposition `on_account`) pays the customer's open invoices in the payment's currency,
 * oldest first, as allocations of the credited payment (rule `credit`); what no invoice needs yet stays on
 * account. Only settled money is applied.
 */
export function applyCredits(
  allocator: Allocator,
  ledgers: LedgerSet,
  payments: ReadonlyMap<string, Payment>,
  dispositions: readonly PaymentDisposition[],
): void {
  for (const credit of dispositions) {
    if (credit.kind !== 'on_account' || !credit.customerId) continue
    const payment = payments.get(credit.transactionId)
    if (!payment || payment.phase !== 'settled') continue
    const taken = new Set(
      allocator.allocations
        .filter((allocation) => allocation.transactionId === credit.transactionId)
        .map((allocation) => allocation.invoiceId),
    )
    const open = ledgers
      .values()
      .filter(
        (ledger) =>
          ledger.invoice.customerId === credit.customerId &&
          ledger.invoice.currency === payment.transaction.currency &&
          !ledger.invoice.void &&
          !taken.has(ledger.invoice.id) &&
          ledger.openForSettled() > 0n,
      )
      .sort((a, b) => compareAge(a.invoice, b.invoice))
    let rest = toUnits(credit.amount)
    for (const ledger of open) {
      if (rest <= 0n) break
      const take = minUnits(rest, ledger.openForSettled())
      rest -= take
      allocator.credit(payment, ledger, take)
    }
  }
}

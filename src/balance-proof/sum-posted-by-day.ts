import { Decimal } from 'decimal.js'

const Exact = Decimal.clone({ precision: 1_000 })

export type ProofTransaction = {
  status?: string | null
  postedDate?: string | null
  amount?: string | null
  currency?: string | null
}

/**
 * The mirrored side of the proof from plain transactions: per posted date, the exact sum of the posted amounts
 * in the account's currency (the store computes the same in SQL). Pending lines are excluded, as the seed says
 * of postedTransactionDelta; a line in another currency is one whose booked amount the bank has not converted.
 */
export function sumPostedByDay(
  transactions: Iterable<ProofTransaction>,
  accountCurrency: string,
): Map<string, string> {
  const sums = new Map<string, Decimal>()
  for (const t of transactions) {
    if (t.status !== 'posted' || !t.postedDate || t.amount == null) continue
    if (t.currency != null && t.currency !== accountCurrency) continue
    sums.set(t.postedDate, (sums.get(t.postedDate) ?? new Exact(0)).plus(t.amount))
  }
  return new Map([...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, sum]) => [date, sum.toFixed()]))
}

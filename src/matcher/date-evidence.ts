import type { Evidence, MatchInvoice, MatchTransaction } from './types.js'

const DAY_MS = 86_400_000

/** A date or timestamp's calendar day as days since 1970 (UTC); null when it is not `YYYY-MM-DD…`. */
export function dayNumber(date: string | null | undefined): number | null {
  if (!date || date.length < 10) return null
  const day = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)))
  return Number.isNaN(day) ? null : Math.floor(day / DAY_MS)
}

/**
 * An invoice issued more than `graceDays` after the payment was booked cannot be what the payment was for when
 * it was sent (a down payment, a number the payer quoted before the invoice existed): a conflict only a person
 * explains. Null when either date is unknown or the invoice is not that late.
 */
export function issuedAfterPayment(
  invoice: MatchInvoice,
  transaction: MatchTransaction,
  graceDays: number,
): Evidence | null {
  // Dates written alike order as text: an invoice issued on or before the booking day needs no arithmetic.
  if (!invoice.issueDate || !transaction.postedDate || invoice.issueDate <= transaction.postedDate)
    return null
  const issued = dayNumber(invoice.issueDate)
  const booked = dayNumber(transaction.postedDate)
  if (issued === null || booked === null || issued - booked <= graceDays) return null
  return {
    code: 'conflict_invoice_after_payment',
    points: 0,
    text: `invoice ${invoice.number} was issued on ${invoice.issueDate?.slice(0, 10)}, ${issued - booked} days after the payment was booked (${transaction.postedDate?.slice(0, 10)}): more than the ${graceDays} days of grace`,
    conflict: 'unexplained',
  }
}

/** How many days before the outflow the inflow was booked; null when a date is unknown. */
export function daysBetween(earlier: MatchTransaction, later: MatchTransaction): number | null {
  const from = dayNumber(earlier.postedDate)
  const to = dayNumber(later.postedDate)
  return from === null || to === null ? null : to - from
}

import type { Evidence, MatchInvoice, MatchTransaction } from './types.js'

const DAY_MS = 86_400_000

/** A date or timestamp's calendar day as days since 1970 (UTC); null when it is not `YYYY-MM-DD…`. */
export function dayNumber(date: string | null | undefined): number | null {
  if (!date || date.length < 10 || date.charCodeAt(4) !== 45 || date.charCodeAt(7) !== 45) return null
  const year = digits(date, 0, 4)
  const month = digits(date, 5, 7)
  const day = digits(date, 8, 10)
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31) return null
  return Math.floor(Date.UTC(year, month - 1, day) / DAY_MS)
}

function digits(text: string, from: number, to: number): number {
  let value = 0
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at) - 48
    if (code < 0 || code > 9) return -1
    value = value * 10 + code
  }
  return value
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

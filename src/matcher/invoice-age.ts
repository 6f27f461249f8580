import type { MatchInvoice } from './types.js'

/** How old an invoice is, as text: its issue date, else its due date; undated sorts last. */
export function ageOf(invoice: MatchInvoice): string {
  return invoice.issueDate ?? invoice.dueDate ?? '\uffff'
}

/** Oldest first (issue date, else due date, undated last), then by id. */
export function compareAge(a: MatchInvoice, b: MatchInvoice): number {
  const ageA = ageOf(a)
  const ageB = ageOf(b)
  if (ageA !== ageB) return ageA < ageB ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * An age written `YYYY-MM-DD` as the number YYYYMMDD, which orders as the text does (same length, digits in the
 * same places); -1 for any other form, which only the text can order.
 */
export function ageNumber(age: string): number {
  if (age.length !== 10 || age.charCodeAt(4) !== 45 || age.charCodeAt(7) !== 45) return -1
  let value = 0
  for (let at = 0; at < 10; at++) {
    if (at === 4 || at === 7) continue
    const code = age.charCodeAt(at)
    if (code < 48 || code > 57) return -1
    value = value * 10 + code - 48
  }
  return value
}

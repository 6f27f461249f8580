/** The second held-out batch's kit: the main book and the picker seeded 2512 (see write-held-out-2-cases.ts). */
import { Decimal } from 'decimal.js'
import { caseKit } from '../../test/support/case-kit.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'
import { loadBook } from '../../test/support/realistic-book.js'

export const kit = caseKit(loadBook('main'), 2512)
export const {
  book,
  p,
  cases,
  add,
  iban,
  hasAccount,
  nameOf,
  unique,
  from,
  postedAfter,
  applied,
  person,
  sum,
  tx,
  sepaFields,
  eu,
  us,
  uk,
} = kit

/** `amount` ÷ `parts`, cut to the cent (the first instalments; the last pays the rest). */
export const part = (amount: string, parts: number) =>
  new Decimal(amount).div(parts).toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed(2)

export const minus = (amount: string, less: string) => new Decimal(amount).minus(less).toFixed(2)

/** The latest issue date of the invoices, plus `days` (capped at the book's end). */
export const after = (invoices: BookInvoice[], days = 20) =>
  postedAfter(
    invoices.reduce((late, invoice) => ((invoice.issueDate ?? '') > (late.issueDate ?? '') ? invoice : late)),
    days,
  )

/** The customer's other unused open invoices. */
export const othersOf = (invoice: BookInvoice) =>
  p.invoicesOf(invoice.customerId ?? '').filter((other) => other.id !== invoice.id)

/** Open invoices of customers other than `owner`'s, in its currency, with this amount. */
export const strangersAt = (amount: string, owner: BookInvoice) =>
  book.invoices.filter(
    (other) =>
      other.amount === amount && other.customerId !== owner.customerId && other.currency === owner.currency,
  )

/** The one own open invoice at exactly `amount` (undefined unless there is exactly one). */
export const ownAt = (owner: BookInvoice, amount: string) => {
  const found = p.invoicesOf(owner.customerId ?? '').filter((other) => other.amount === amount)
  return found.length === 1 ? found[0] : undefined
}

export const cents = (amount: string) => Number(amount.split('.')[1] ?? '0')

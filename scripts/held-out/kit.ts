/** Helpers the held-out case writers share: the book, a picker, and bank-line shapes (see write-held-out-cases.ts). */
import { Decimal } from 'decimal.js'
import type { MatchTransaction } from '../../src/matcher/index.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'
import { addDays, bankLine, bankName, BookPicker, ustrd } from '../../test/support/bank-lines.js'
import { loadBook, type RealisticCase, type RealisticExpect } from '../../test/support/realistic-book.js'

export const book = loadBook('main')
export const p = new BookPicker(book, 25)
export const cases: RealisticCase[] = []
export const add = (entry: RealisticCase) => cases.push(entry)

export const iban = (invoice: BookInvoice) => p.customer(invoice.customerId ?? '').bankAccounts?.[0] ?? ''
export const hasAccount = (invoice: BookInvoice) => iban(invoice) !== ''
export const nameOf = (invoice: BookInvoice) => p.customer(invoice.customerId ?? '').name
export const unique = (invoice: BookInvoice) => p.sameAmountOfCustomer(invoice) === 1
export const from = (country: string) => (invoice: BookInvoice) => p.country(invoice) === country
export const postedAfter = (invoice: BookInvoice, days = 24) => {
  const date = addDays(invoice.issueDate ?? '2026-01-01', days)
  return date > '2026-03-31' ? '2026-03-31' : date
}
export const applied = (invoices: BookInvoice[], allocations?: Record<string, string>): RealisticExpect => ({
  outcome: 'applied',
  invoiceIds: invoices.map((invoice) => invoice.id),
  ...(allocations ? { allocations } : {}),
})
export const person = (
  outcome: RealisticExpect['outcome'],
  invoices: BookInvoice[] = [],
): RealisticExpect => ({
  outcome,
  invoiceIds: invoices.map((invoice) => invoice.id),
})
export const sum = (...invoices: BookInvoice[]) =>
  invoices.reduce((total, invoice) => total.plus(invoice.amount), new Decimal(0)).toFixed(2)
export const tx = (
  id: string,
  invoice: BookInvoice,
  amount: string,
  date: string,
  fields: Partial<MatchTransaction>,
) => bankLine(`tx-${id}`, amount, invoice.currency, date, fields)
export const sepaFields = (
  invoice: BookInvoice,
  reference: string,
  full = true,
): Partial<MatchTransaction> => ({
  paymentReference: ustrd(reference),
  description: 'SEPA CREDIT TRANSFER',
  counterpartyName: bankName(nameOf(invoice)),
  counterpartyAccountMasked: full ? iban(invoice) : null,
  customerReference: 'NOTPROVIDED',
})
export const eu = (invoice: BookInvoice) => invoice.entityId === 'ent_eu' && invoice.currency === 'EUR'
export const us = (invoice: BookInvoice) => invoice.entityId === 'ent_us'
export const uk = (invoice: BookInvoice) => invoice.entityId === 'ent_uk'

/** Issued at least a week before `date`: an invoice the payer could have had. */
export const before = (date: string) => (invoice: BookInvoice) =>
  (invoice.issueDate ?? '') <= addDays(date, -7)

export const achDescription = (invoice: BookInvoice, entry: string, individualId: string, date: string) =>
  `ORIG CO NAME:${bankName(nameOf(invoice), 16)} ORIG ID:1${p.random.digits(9)} DESC DATE:${date.slice(2).replace(/-/g, '')} CO ENTRY DESCR:${entry} SEC:CCD TRACE#:0210000${p.random.digits(8)} EED:${date.slice(2).replace(/-/g, '')} IND ID:${individualId} IND NAME:NORTHWIND COMMERCE`

/** Invoices of other customers in the same currency with this number. */
export const strangerWith = (number: string, owner: BookInvoice) => {
  const other = p.byNumber(number)
  return other && other.customerId !== owner.customerId && other.currency === owner.currency
    ? other
    : undefined
}

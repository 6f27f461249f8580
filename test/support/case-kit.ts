/**
 * The one kit for writing realistic corpus cases against a book (scripts/write-held-out-cases.ts,
 * scripts/write-held-out-2-cases.ts, scripts/write-realistic-cases.ts): a seeded picker, the cases written so far,
 * and the bank-line shapes cases share. It lives beside the tests' support because the tests read what it writes
 * and scripts may import test/support/ (tsconfig includes both; the import rules cover src/ only), not the reverse.
 */
import { Decimal } from 'decimal.js'
import type { MatchTransaction } from '../../src/matcher/index.js'
import { addDays, bankLine, bankName, BookPicker, ustrd } from './bank-lines.js'
import type { Book, BookInvoice, RealisticCase, RealisticExpect } from './realistic-book.js'

/** `idPrefix` keeps case ids unique when the same templates write cases against another book. */
export function caseKit(book: Book, seed: number, idPrefix = '') {
  const p = new BookPicker(book, seed)
  const cases: RealisticCase[] = []
  const add = (entry: RealisticCase) =>
    cases.push(idPrefix ? { ...entry, id: `${idPrefix}${entry.id}` } : entry)
  const iban = (invoice: BookInvoice) => p.customer(invoice.customerId ?? '').bankAccounts?.[0] ?? ''
  const hasAccount = (invoice: BookInvoice) => iban(invoice) !== ''
  const nameOf = (invoice: BookInvoice) => p.customer(invoice.customerId ?? '').name
  const unique = (invoice: BookInvoice) => p.sameAmountOfCustomer(invoice) === 1
  const from = (country: string) => (invoice: BookInvoice) => p.country(invoice) === country
  const postedAfter = (invoice: BookInvoice, days = 24) => {
    const date = addDays(invoice.issueDate ?? '2026-01-01', days)
    return date > '2026-03-31' ? '2026-03-31' : date
  }
  const applied = (invoices: BookInvoice[], allocations?: Record<string, string>): RealisticExpect => ({
    outcome: 'applied',
    invoiceIds: invoices.map((invoice) => invoice.id),
    ...(allocations ? { allocations } : {}),
  })
  const person = (outcome: RealisticExpect['outcome'], invoices: BookInvoice[] = []): RealisticExpect => ({
    outcome,
    invoiceIds: invoices.map((invoice) => invoice.id),
  })
  const sum = (...invoices: BookInvoice[]) =>
    invoices.reduce((total, invoice) => total.plus(invoice.amount), new Decimal(0)).toFixed(2)
  const tx = (
    id: string,
    invoice: BookInvoice,
    amount: string,
    date: string,
    fields: Partial<MatchTransaction>,
  ) => bankLine(`tx-${idPrefix}${id}`, amount, invoice.currency, date, fields)
  const sepaFields = (invoice: BookInvoice, reference: string, full = true): Partial<MatchTransaction> => ({
    paymentReference: ustrd(reference),
    description: 'SEPA CREDIT TRANSFER',
    counterpartyName: bankName(nameOf(invoice)),
    counterpartyAccountMasked: full ? iban(invoice) : null,
    customerReference: 'NOTPROVIDED',
  })
  const eu = (invoice: BookInvoice) => invoice.entityId === 'ent_eu' && invoice.currency === 'EUR'
  const us = (invoice: BookInvoice) => invoice.entityId === 'ent_us'
  const uk = (invoice: BookInvoice) => invoice.entityId === 'ent_uk'

  /** Issued at least a week before `date`: an invoice the payer could have had. */
  const before = (date: string) => (invoice: BookInvoice) => (invoice.issueDate ?? '') <= addDays(date, -7)

  const achDescription = (invoice: BookInvoice, entry: string, individualId: string, date: string) =>
    `ORIG CO NAME:${bankName(nameOf(invoice), 16)} ORIG ID:1${p.random.digits(9)} DESC DATE:${date.slice(2).replace(/-/g, '')} CO ENTRY DESCR:${entry} SEC:CCD TRACE#:0210000${p.random.digits(8)} EED:${date.slice(2).replace(/-/g, '')} IND ID:${individualId} IND NAME:NORTHWIND COMMERCE`

  /** Invoices of other customers in the same currency with this number. */
  const strangerWith = (number: string, owner: BookInvoice) => {
    const other = p.byNumber(number)
    return other && other.customerId !== owner.customerId && other.currency === owner.currency
      ? other
      : undefined
  }

  /** The latest issue date of the invoices, plus `days` (capped at the book's end). */
  const after = (invoices: BookInvoice[], days = 20) =>
    postedAfter(
      invoices.reduce((late, invoice) =>
        (invoice.issueDate ?? '') > (late.issueDate ?? '') ? invoice : late,
      ),
      days,
    )

  /** The customer's other unused open invoices. */
  const othersOf = (invoice: BookInvoice) =>
    p.invoicesOf(invoice.customerId ?? '').filter((other) => other.id !== invoice.id)

  /** Open invoices of customers other than `owner`'s, in its currency, with this amount. */
  const strangersAt = (amount: string, owner: BookInvoice) =>
    book.invoices.filter(
      (other) =>
        other.amount === amount && other.customerId !== owner.customerId && other.currency === owner.currency,
    )

  /** The one own open invoice at exactly `amount` (undefined unless there is exactly one). */
  const ownAt = (owner: BookInvoice, amount: string) => {
    const found = p.invoicesOf(owner.customerId ?? '').filter((other) => other.amount === amount)
    return found.length === 1 ? found[0] : undefined
  }
  return {
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
    before,
    achDescription,
    strangerWith,
    after,
    othersOf,
    strangersAt,
    ownAt,
  }
}

/** `amount` ÷ `parts`, cut to the cent (the first instalments; the last pays the rest). */
export const part = (amount: string, parts: number) =>
  new Decimal(amount).div(parts).toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed(2)

export const minus = (amount: string, less: string) => new Decimal(amount).minus(less).toFixed(2)

export const cents = (amount: string) => Number(amount.split('.')[1] ?? '0')

/**
 * Throws unless every earlier line of a case precedes its payment and every invoice a case names was issued by its
 * payment's date (except the cases named, which are about an invoice issued later).
 */
export function checkDates(
  cases: readonly RealisticCase[],
  book: Book,
  issuedLater: readonly string[] = [],
): void {
  for (const entry of cases) {
    for (const prior of entry.prior ?? []) {
      if ((prior.postedDate ?? '') >= (entry.payment.postedDate ?? ''))
        throw new Error(`${entry.id}: prior ${prior.id} not before the payment`)
    }
    if (issuedLater.includes(entry.id)) continue
    for (const { payment, expect } of [entry, ...(entry.batch ?? [])]) {
      for (const id of expect.invoiceIds) {
        const invoice =
          book.invoices.find((item) => item.id === id) ?? entry.invoices?.find((item) => item.id === id)
        if ((invoice?.issueDate ?? '') > (payment.postedDate ?? ''))
          throw new Error(`${entry.id}: ${id} issued ${invoice?.issueDate} after ${payment.postedDate}`)
      }
    }
  }
}

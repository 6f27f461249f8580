/**
 * The matching benchmark's workload, shared by `bench/match.ts` (how fast) and `bench/match-identity.ts` (what it
 * decides): customers, open invoices and a fixed mix of transactions, all drawn from seeded generators so every run
 * draws the same, and `matchOne`, which takes a transaction the way the store layer does.
 */
import { Buffer } from 'node:buffer'
import type { InvoiceIndex } from '../src/matcher/index.js'
import {
  customerKeyOf,
  findReferences,
  invoiceUnits,
  matchPayments,
  referencedInvoiceIds,
  rfCheckDigits,
  toUnits,
  type MatchCustomer,
  type MatchInvoice,
  type MatchPaymentsResult,
  type MatchTransaction,
} from '../src/matcher/index.js'
import { matchTransactionOf } from '../src/matching/store-shapes.js'
import type { MatchTransactionRow } from '../src/store/index.js'

const INVOICES_PER_CUSTOMER = 20
const PAYMENT_DELAY_DAYS = 14

/** A small deterministic PRNG (mulberry32) so every run draws the same workload. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A Luhn (mod 10) KID of 11 digits for invoice `index`. */
function kid(index: number): string {
  const body = String(4_000_000_000 + index)
  let sum = 0
  for (let at = body.length - 1, double = true; at >= 0; at--, double = !double) {
    let digit = Number(body[at])
    if (double) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2
    sum += digit
  }
  return `${body}${(10 - (sum % 10)) % 10}`
}

/** One customer of the master data per INVOICES_PER_CUSTOMER invoices, each with the account it pays from. */
export function customersOf(count: number): MatchCustomer[] {
  return Array.from({ length: Math.ceil(count / INVOICES_PER_CUSTOMER) }, (_, index) => ({
    id: `cus_${index}`,
    name: `Customer ${index} GmbH`,
    aliases: [`CUSTOMER ${index}`],
    bankAccounts: [`DE89 3704 0044 ${String(index).padStart(10, '0')}`],
  }))
}

export function invoicesOf(count: number): MatchInvoice[] {
  const next = random(count)
  return Array.from({ length: count }, (_, index) => {
    const cents = 1_000 + Math.floor(next() * 500_000)
    const number = index % 10 === 9 ? `SO/2024/${String(index).padStart(6, '0')}` : `INV-${100_000 + index}`
    const issued =
      index % 4 === 1 ? kid(index) : index % 4 === 2 ? `RF${rfCheckDigits(`B${index}`)}B${index}` : null
    return {
      id: `inv_${index}`,
      number,
      amount: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
      currency: 'EUR',
      customerId: `cus_${Math.floor(index / INVOICES_PER_CUSTOMER)}`,
      customerName: `Customer ${Math.floor(index / INVOICES_PER_CUSTOMER)} GmbH`,
      paymentReference: issued,
      issueDate: `2024-${String(1 + (index % 12)).padStart(2, '0')}-${String(1 + (index % 28)).padStart(2, '0')}`,
    }
  })
}

/** A payment is booked after the invoice it pays: PAYMENT_DELAY_DAYS after the invoice's issue date. */
function paidAfter(invoice: MatchInvoice): string {
  const paid = new Date(`${invoice.issueDate as string}T00:00:00Z`)
  paid.setUTCDate(paid.getUTCDate() + PAYMENT_DELAY_DAYS)
  return paid.toISOString().slice(0, 10)
}

function mangled(number: string, pick: number): string {
  const [prefix, ...rest] = number.split(/[-/]/)
  const digits = rest.join('')
  switch (pick % 4) {
    case 0:
      return `${(prefix as string).toLowerCase()} ${digits}`
    case 1:
      return `${prefix}${digits}`
    case 2:
      return `${prefix}-000${digits}`
    default:
      return number.replace(/[-/]/g, ' ')
  }
}

/**
 * A text column as the pg driver gives it: a fresh flat string decoded from the message's bytes, never the
 * generator's own string (a template literal's cons string, or an invoice's name, whose hash V8 has cached).
 */
function column(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : Buffer.from(text, 'utf8').toString('utf8')
}

/** The row the store reads for a transaction (the bench draws the transaction first, then writes its row). */
function rowOf(transaction: MatchTransaction): MatchTransactionRow {
  return {
    id: column(transaction.id),
    account_id: column(transaction.accountId),
    entity_id: column(transaction.entityId),
    amount: column(String(transaction.amount)),
    currency: column(transaction.currency),
    status: column(transaction.status),
    posted_date: column(transaction.postedDate),
    updated_at: null,
    payment_reference: column(transaction.paymentReference),
    customer_reference: column(transaction.customerReference),
    description: column(transaction.description),
    raw_description: column(transaction.rawDescription),
    counterparty_name: column(transaction.counterpartyName),
    counterparty_account_masked: column(transaction.counterpartyAccountMasked),
    bank_reference: column(transaction.bankReference),
  } as MatchTransactionRow
}

/**
 * The workload's `count` transactions as the store hands them to the matcher, a page at a time: each page's rows
 * are drawn and read by the store's own `matchTransactionOf` only when the page is asked for, as a worker reads a
 * page of rows just before it matches them: fresh in memory and in the CPU cache, not 200,000 kept cold, and each
 * string new to V8 (flattened and hashed on first use), not one hashed in an earlier round.
 */
export function* transactionPages(
  invoices: readonly MatchInvoice[],
  count: number,
  pageSize: number,
): Generator<MatchTransaction[]> {
  let page: MatchTransaction[] = []
  for (const draft of draftTransactions(invoices, count)) {
    page.push(matchTransactionOf(rowOf(draft)) as MatchTransaction)
    if (page.length === pageSize) {
      yield page
      page = []
    }
  }
  if (page.length > 0) yield page
}

function* draftTransactions(invoices: readonly MatchInvoice[], count: number): Generator<MatchTransaction> {
  const next = random(7)
  const pickInvoice = () => invoices[Math.floor(next() * invoices.length)] as MatchInvoice
  for (let index = 0; index < count; index++) yield draftTransaction(index, next, pickInvoice)
}

function draftTransaction(
  index: number,
  next: () => number,
  pickInvoice: () => MatchInvoice,
): MatchTransaction {
  const invoice = pickInvoice()
  const customer = Number((invoice.customerId as string).slice(4))
  const base: MatchTransaction = {
    id: `tx_${index}`,
    accountId: 'acc_1',
    amount: invoice.amount,
    currency: 'EUR',
    status: index % 10 === 0 ? 'pending' : 'posted',
    postedDate: paidAfter(invoice),
    counterpartyName: invoice.customerName ?? null,
    counterpartyAccountMasked:
      index % 3 === 0 ? `DE89 **** **** **${String(customer).padStart(10, '0').slice(-4)}` : null,
    description: 'SEPA CREDIT TRANSFER',
  }
  const kind = next()
  if (kind < 0.3) return { ...base, paymentReference: invoice.number }
  if (kind < 0.45) return { ...base, paymentReference: mangled(invoice.number, index) }
  if (kind < 0.5 && invoice.paymentReference) return { ...base, paymentReference: invoice.paymentReference }
  if (kind < 0.55) return { ...base, paymentReference: `Rechnung Nr. ${invoice.number.replace(/^\D+/, '')}` }
  if (kind < 0.7) {
    return { ...base, description: `Payment for invoice ${invoice.number} thank you, order 44812` }
  }
  if (kind < 0.75) {
    const body = invoice.number.replace(/[^0-9A-Za-z]/g, '').toUpperCase()
    return { ...base, paymentReference: `RF${rfCheckDigits(body)}${body}` }
  }
  if (kind < 0.8) return { ...base, rawDescription: `/INV/${invoice.number}/20240601 /RFB/PO-88812` }
  if (kind < 0.88) {
    const other = pickInvoice()
    const postedDate = [base.postedDate as string, paidAfter(other)].sort()[1]
    return {
      ...base,
      amount: '1000.00',
      postedDate,
      paymentReference: `${invoice.number}, ${other.number}`,
    }
  }
  if (kind < 0.95) return { ...base, paymentReference: 'Thanks for the great work', description: 'TRANSFER' }
  return { ...base, amount: '12.34', paymentReference: null, description: 'MISC CREDIT' }
}

/**
 * As the store loads a transaction's closed set: the invoices its references may mean and, when the amount is not
 * their total (or it names none), the open invoices of their customers and of its payer.
 */
export function matchOne(index: InvoiceIndex, transaction: MatchTransaction): MatchPaymentsResult {
  const references = findReferences(index, transaction)
  const invoices = referencedInvoiceIds(references).map((id) => index.get(id) as MatchInvoice)
  const total = invoices.reduce((sum, invoice) => sum + invoiceUnits(invoice), 0n)
  if (invoices.length === 0 || total !== toUnits(transaction.amount)) {
    const payer = index.customers.identify(
      transaction.counterpartyName,
      transaction.counterpartyAccountMasked,
    )
    const keys = new Set([...payer.customers, ...invoices.flatMap((invoice) => customerKeyOf(invoice) ?? [])])
    const named = new Set(invoices)
    for (const key of keys)
      for (const invoice of index.ofCustomerKey(key)) if (!named.has(invoice)) invoices.push(invoice)
  }
  const known = new Map([[transaction.id, references]])
  return matchPayments({ index, invoices, transactions: [transaction], references: known })
}

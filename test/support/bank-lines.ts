/**
 * Bank lines as real formats print them, for writing realistic corpus cases: MT940 `:86:` with `?20`–`?29`
 * subfields of 27 characters, SEPA names and remittance (140 characters), ACH CCD+/CTX addenda with RMR segments,
 * BACS and Faster Payments references (18 characters), Fedwire text. Pure text builders; no matching logic.
 */
import type { MatchCustomer, MatchTransaction } from '../../src/matcher/index.js'
import type { Book, BookInvoice } from './realistic-book.js'
import { Random } from './bank-refs.js'

const ACCOUNTS: Record<string, string> = { EUR: 'acc_eur', USD: 'acc_usd', GBP: 'acc_gbp', NOK: 'acc_nok' }

export function addDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`)
  at.setUTCDate(at.getUTCDate() + days)
  return at.toISOString().slice(0, 10)
}

/** A posted bank line on the entity's account for the currency. */
export function bankLine(
  id: string,
  amount: string,
  currency: string,
  postedDate: string,
  fields: Partial<MatchTransaction> = {},
): MatchTransaction {
  return {
    id,
    accountId: ACCOUNTS[currency] ?? 'acc_eur',
    amount,
    currency,
    status: 'posted',
    postedDate,
    ...fields,
  }
}

/** A name as SEPA and MT940 carry it: upper case, umlauts spelled out, the SEPA character set. */
export function bankName(name: string, length = 70): string {
  return name
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/Ä/g, 'Ae')
    .replace(/Ö/g, 'Oe')
    .replace(/Ü/g, 'Ue')
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .slice(0, length)
}

export function compactIban(iban: string): string {
  return iban.replace(/\s+/g, '')
}

/** SEPA unstructured remittance: at most 140 characters. */
export function ustrd(text: string): string {
  if (text.length > 140) throw new Error(`Ustrd longer than 140: ${text}`)
  return text
}

/**
 * An MT940 `:86:` field of a German bank: business transaction code, posting text, `?20`–`?29` lines of 27
 * characters holding EREF+/MREF+/SVWZ+ (each starting a line, long ones wrapped), the payer's BIC, IBAN and name.
 */
export function mt940(fields: {
  gvc: string
  postingText: string
  eref?: string
  mref?: string
  svwz: string
  bic: string
  iban: string
  name: string
}): string {
  const parts = [
    fields.eref && `EREF+${fields.eref}`,
    fields.mref && `MREF+${fields.mref}`,
    `SVWZ+${fields.svwz}`,
  ].filter((part): part is string => Boolean(part))
  const lines: string[] = []
  for (const part of parts) for (let at = 0; at < part.length; at += 27) lines.push(part.slice(at, at + 27))
  if (lines.length > 10) throw new Error('more than ten ?2x lines')
  const name = bankName(fields.name)
  return (
    `${fields.gvc}?00${fields.postingText}?109310` +
    lines.map((line, at) => `?${20 + at}${line}`).join('') +
    `?30${fields.bic}?31${compactIban(fields.iban)}?32${name.slice(0, 27)}` +
    (name.length > 27 ? `?33${name.slice(27, 54)}` : '') +
    '?34000'
  )
}

/** ACH CCD+ addenda: one RMR segment, `\` terminated. */
export function ccdAddenda(invoiceNumber: string, paid: string): string {
  return `RMR*IV*${invoiceNumber}*PI*${paid}\\`
}

/** An ACH CTX 820 payment order with one RMR per invoice (`paid` and `invoiced` amounts), as a bank prints it. */
export function ctx820(fields: {
  payer: string
  trace: string
  total: string
  date: string
  lines: Array<{
    number: string
    paid: string
    invoiced: string
    adjustment?: { amount: string; code: string }
  }>
}): string {
  const segments = [
    `ST*820*0001`,
    `BPR*C*${fields.total}*C*ACH*CTX*01*071000013*DA*1234567890*1${fields.trace.slice(0, 9)}**01*021000021*DA*987654321*${fields.date}`,
    `TRN*1*${fields.trace}*1${fields.trace.slice(0, 9)}`,
    `N1*PR*${fields.payer}`,
    `N1*PE*NORTHWIND COMMERCE INC`,
    `ENT*1`,
    ...fields.lines.flatMap((line) => [
      `RMR*IV*${line.number}*PI*${line.paid}*${line.invoiced}`,
      ...(line.adjustment ? [`ADX*${line.adjustment.amount}*${line.adjustment.code}`] : []),
    ]),
    `SE*${6 + fields.lines.length}*0001`,
  ]
  return segments.join('~') + '~'
}

/** An 18-character BACS / Faster Payments reference. */
export function ref18(text: string): string {
  return text.slice(0, 18)
}

/** Deterministic choice of invoices from a book, each used once across a case file. */
export class BookPicker {
  readonly random: Random
  private readonly used = new Set<string>()
  readonly byId: Map<string, BookInvoice>
  private readonly byCustomer = new Map<string, BookInvoice[]>()

  constructor(
    readonly book: Book,
    seed: number,
  ) {
    this.random = new Random(seed)
    this.byId = new Map(book.invoices.map((invoice) => [invoice.id, invoice]))
    for (const invoice of book.invoices) {
      const list = this.byCustomer.get(invoice.customerId ?? '') ?? []
      list.push(invoice)
      this.byCustomer.set(invoice.customerId ?? '', list)
    }
  }

  customer(id: string): MatchCustomer {
    const found = this.book.customers.find((customer) => customer.id === id)
    if (!found) throw new Error(`no customer ${id}`)
    return found
  }

  country(invoice: BookInvoice): string {
    return this.book.countries[invoice.customerId ?? ''] ?? ''
  }

  invoicesOf(customerId: string): BookInvoice[] {
    return this.byCustomer.get(customerId) ?? []
  }

  /** How many of the customer's open invoices have this amount. */
  sameAmountOfCustomer(invoice: BookInvoice): number {
    return this.invoicesOf(invoice.customerId ?? '').filter((other) => other.amount === invoice.amount).length
  }

  /** How many of the book's invoices in the currency have this amount. */
  sameAmountInBook(amount: string, currency: string): number {
    return this.book.invoices.filter((other) => other.amount === amount && other.currency === currency).length
  }

  byNumber(number: string): BookInvoice | undefined {
    return this.book.invoices.find((invoice) => invoice.number === number)
  }

  /**
   * A number of the series `prefix` + digits (`INV-2026-0`, `1`, `SI-0`, `26`) beyond the last one issued, so no
   * invoice has it yet: `ahead` numbers past the end, padded to the series' width.
   */
  unissued(prefix: string, ahead: number): string {
    let last = 0
    let width = 0
    for (const invoice of this.book.invoices) {
      if (!invoice.number.startsWith(prefix)) continue
      const rest = invoice.number.slice(prefix.length)
      if (!/^\d+$/.test(rest)) continue
      width = Math.max(width, rest.length)
      last = Math.max(last, Number(rest))
    }
    return `${prefix}${String(last + ahead).padStart(width, '0')}`
  }

  markUsed(invoice: BookInvoice): BookInvoice {
    this.used.add(invoice.id)
    return invoice
  }

  /** An unused invoice satisfying `filter`, from a random start; marked used. */
  pick(filter: (invoice: BookInvoice) => boolean): BookInvoice {
    const all = this.book.invoices
    const start = this.random.int(0, all.length - 1)
    for (let step = 0; step < all.length; step++) {
      const invoice = all[(start + step) % all.length] as BookInvoice
      if (!this.used.has(invoice.id) && filter(invoice)) return this.markUsed(invoice)
    }
    throw new Error('no invoice fits')
  }
}

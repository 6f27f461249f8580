import { Decimal } from 'decimal.js'
import { DomainError } from '../errors/index.js'
import { amountIn } from './currency-decimals.js'
import type { JournalEntry, JournalLine } from './journal-entries.js'

/** What a DATEV batch's header names, and where each ledger account books. */
export type DatevOptions = {
  /** Beraternummer (1001–9999999) and Mandantennummer (1–99999). */
  consultant: number
  client: number
  /** The fiscal year's first day, YYYY-MM-DD: DATEV's Belegdatum has no year, it is read within this one. */
  fiscalYearStart: string
  /** Ledger account name → DATEV account number; a name of digits is its own number. */
  accountNumbers: Readonly<Record<string, string>>
}

/**
 * The leading columns of DATEV-Format Buchungsstapel (EXTF, header version 700, category 21, format version 13),
 * in DATEV's order and spelling: the 14 of 125 other exporters (Odoo's among them) write; the rest are optional.
 */
export const DATEV_COLUMNS = [
  'Umsatz (ohne Soll/Haben-Kz)',
  'Soll/Haben-Kennzeichen',
  'WKZ Umsatz',
  'Kurs',
  'Basis-Umsatz',
  'WKZ Basis-Umsatz',
  'Konto',
  'Gegenkonto (ohne BU-Schlüssel)',
  'BU-Schlüssel',
  'Belegdatum',
  'Belegfeld 1',
  'Belegfeld 2',
  'Skonto',
  'Buchungstext',
] as const

const text = (value: string) => `"${value.replaceAll('"', '""')}"`
const compact = (day: string) => day.replaceAll('-', '')
/** Belegfeld 1: up to 36 of the characters DATEV allows there (letters, digits, $ & % * + - /). */
const belegfeld = (value: string) => value.replace(/[^A-Za-z0-9$&%*+\-/]/g, '').slice(0, 36)

function accountNumber(name: string, options: DatevOptions): string {
  const number = options.accountNumbers[name] ?? (/^\d{1,9}$/.test(name) ? name : undefined)
  if (number !== undefined) return number
  throw new DomainError('invalid', 'datev_account_unmapped', `No DATEV account number for "${name}".`, [
    { path: 'datevAccount', message: `name the DATEV account of "${name}" with datevAccount=${name}=NUMBER` },
  ])
}

/** The bookings of one entry: each line of the side with several against the other side's one line. */
function bookings(
  entry: JournalEntry,
): Array<{ amount: string; side: 'S' | 'H'; line: JournalLine; against: JournalLine }> {
  const debits = entry.lines.filter((line) => new Decimal(line.debit).gt(0))
  const credits = entry.lines.filter((line) => new Decimal(line.credit).gt(0))
  if (credits.length === 1)
    return debits.map((line) => ({ amount: line.debit, side: 'S', line, against: credits[0]! }))
  if (debits.length === 1)
    return credits.map((line) => ({ amount: line.credit, side: 'H', line, against: debits[0]! }))
  throw new Error(`journal entry ${entry.id} has several debits and several credits`)
}

/** Belegdatum: the bank's posting date of a payment's entry, else the day bankrec booked it. */
const documentDay = (entry: JournalEntry) => entry.postedDate ?? entry.at.slice(0, 10)

/**
 * A DATEV Buchungsstapel of one currency: the EXTF header line, the column names, then one booking per debit (or
 * credit) line of each entry, its amount with a decimal comma in the currency's decimals and S or H, Konto and
 * Gegenkonto as numbers, Belegdatum DDMM, Belegfeld 1 the invoice number, Buchungstext up to 60 characters.
 * Every Belegdatum must fall in the one fiscal year (else `datev_fiscal_year`); the caller encodes it Windows-1252.
 */
export function renderDatev(
  entries: readonly JournalEntry[],
  period: { from: Date; to: Date },
  options: DatevOptions,
  created: Date,
): string {
  const currency = entries[0]?.currency ?? 'EUR'
  const yearStart = options.fiscalYearStart
  const yearEnd = `${Number(yearStart.slice(0, 4)) + 1}${yearStart.slice(4)}`
  const days = entries.map(documentDay)
  const first = [period.from.toISOString().slice(0, 10), ...days].sort()[0]!
  const last = [new Date(period.to.getTime() - 86_400_000).toISOString().slice(0, 10), ...days].sort().at(-1)!
  if (first < yearStart || last >= yearEnd) {
    throw new DomainError(
      'invalid',
      'datev_fiscal_year',
      `A DATEV batch holds one fiscal year; ${first} to ${last} is not within ${yearStart} to ${yearEnd} (excluded).`,
      [{ path: 'datevFiscalYearStart', message: 'ask for days (and posting dates) of one fiscal year' }],
    )
  }
  const rows = entries.flatMap((entry) =>
    bookings(entry).map(({ amount, side, line, against }) => {
      const day = documentDay(entry)
      const what = entry.invoiceNumber ? `${entry.memo} ${entry.invoiceNumber}` : entry.memo
      return [
        amountIn(amount, currency, ','),
        text(side),
        text(currency),
        '',
        '',
        '',
        accountNumber(line.account, options),
        accountNumber(against.account, options),
        '',
        `${day.slice(8, 10)}${day.slice(5, 7)}`,
        text(belegfeld(entry.invoiceNumber ?? entry.paymentReference ?? entry.id)),
        text(belegfeld(entry.id)),
        '',
        text(`${what}${entry.payer ? ` ${entry.payer}` : ''}`.slice(0, 60)),
      ].join(';')
    }),
  )
  const numbers = Object.values(options.accountNumbers)
  const header = [
    text('EXTF'),
    '700',
    '21',
    text('Buchungsstapel'),
    '13',
    created.toISOString().replace(/\D/g, '').slice(0, 17),
    '',
    '',
    '',
    '',
    String(options.consultant),
    String(options.client),
    compact(yearStart),
    String(Math.max(4, ...numbers.map((n) => n.length))),
    compact(first),
    compact(last),
    text('bankrec journal'),
    '',
    '1',
    '0',
    '0',
    text(currency),
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
  ]
  return [header.join(';'), DATEV_COLUMNS.map(text).join(';'), ...rows].map((row) => `${row}\r\n`).join('')
}

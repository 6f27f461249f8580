import { Decimal } from 'decimal.js'
import { DomainError } from '../errors/index.js'
import { csvRecord } from '../mirror-export/index.js'
import { amountIn } from './currency-decimals.js'
import { renderDatev, type DatevOptions } from './datev-buchungsstapel.js'
import { journalTotals, type JournalEntry } from './journal-entries.js'
import { renderQboPayments, renderXeroPayments } from './payment-records.js'

export const JOURNAL_FORMATS = [
  'json',
  'csv',
  'qbo-csv',
  'xero-csv',
  'qbo-payments',
  'xero-payments',
  'datev',
] as const
export type JournalFormat = (typeof JOURNAL_FORMATS)[number]

/** Files an accounting system imports into one ledger: one currency each (json and csv carry it per row). */
export const SINGLE_CURRENCY_FORMATS: ReadonlySet<JournalFormat> = new Set([
  'qbo-csv',
  'xero-csv',
  'qbo-payments',
  'xero-payments',
  'datev',
])

export type RenderOptions = {
  /** The deposit account payment records name; default the bank's ledger account. */
  deposit?: string
  /** DATEV's header and account numbers, with the period and the moment the batch is made. */
  datev?: DatevOptions & { period: { from: Date; to: Date }; created: Date }
}

const CSV_COLUMNS = [
  'entry_id',
  'at',
  'kind',
  'account',
  'debit',
  'credit',
  'currency',
  'invoice_id',
  'invoice_number',
  'transaction_id',
  'payment_reference',
  'bank_account_id',
  'payer',
  'memo',
]

/** What a bank line of the entry moved: + into the bank, − out of it; null when it has no bank line. */
function bankAmount(entry: JournalEntry, bank: string): Decimal | null {
  const lines = entry.lines.filter((item) => item.account === bank)
  if (lines.length === 0) return null
  return lines.reduce((sum, item) => sum.plus(item.debit).minus(item.credit), new Decimal(0))
}

function describe(entry: JournalEntry): string {
  const what = entry.invoiceNumber ? `${entry.memo} to invoice ${entry.invoiceNumber}` : entry.memo
  return `${what} (payment ${entry.paymentReference ?? entry.transactionId})`
}

/** MM/DD/YYYY, the date QuickBooks Online's bank upload reads by default. */
function usDate(day: string): string {
  return `${day.slice(5, 7)}/${day.slice(8, 10)}/${day.slice(0, 4)}`
}

/** A bank line's date: the bank's posting date, else (no bank line took part) the day bankrec booked it. */
const lineDay = (entry: JournalEntry) => entry.postedDate ?? entry.at.slice(0, 10)

/** Refuses entries of several currencies for a format an accounting system imports into one ledger. */
function oneCurrency(entries: readonly JournalEntry[], format: JournalFormat): void {
  const currencies = [...new Set(entries.map((entry) => entry.currency))].sort()
  if (currencies.length <= 1 || !SINGLE_CURRENCY_FORMATS.has(format)) return
  throw new DomainError(
    'invalid',
    'journal_mixed_currencies',
    `A ${format} file holds one currency; the days asked hold ${currencies.join(', ')}: ask for one with currency.`,
    [{ path: 'currency', message: `is required: one of ${currencies.join(', ')}` }],
  )
}

/**
 * The journal as a file: `json` (entries with their lines and the totals per currency), `csv` (one line per
 * row), the bank-line uploads of QuickBooks Online (`qbo-csv`: its 3-column Date, Description, Amount) and
 * Xero (`xero-csv`: Date, Amount, Payee, Description, Reference), one row per entry that moved the bank account
 * dated by the bank's posting date; payment records (`qbo-payments`, `xero-payments`) and a DATEV
 * Buchungsstapel (`datev`). Amounts carry the currency's decimals; text cells are formula-safe (csvRecord).
 */
export function renderJournal(
  entries: readonly JournalEntry[],
  format: JournalFormat,
  bank: string,
  options: RenderOptions = {},
): string {
  oneCurrency(entries, format)
  switch (format) {
    case 'json':
      return `${JSON.stringify({ entries, totals: journalTotals(entries) }, null, 2)}\n`
    case 'csv':
      return [
        csvRecord(CSV_COLUMNS),
        ...entries.flatMap((entry) =>
          entry.lines.map((item) =>
            csvRecord([
              entry.id,
              entry.at,
              entry.kind,
              item.account,
              item.debit,
              item.credit,
              entry.currency,
              entry.invoiceId,
              entry.invoiceNumber,
              entry.transactionId,
              entry.paymentReference,
              entry.bankAccountId,
              entry.payer,
              entry.memo,
            ]),
          ),
        ),
      ].join('')
    case 'qbo-csv':
      return [
        csvRecord(['Date', 'Description', 'Amount']),
        ...entries.flatMap((entry) => {
          const amount = bankAmount(entry, bank)
          return amount === null
            ? []
            : [csvRecord([usDate(lineDay(entry)), describe(entry), amountIn(amount, entry.currency)])]
        }),
      ].join('')
    case 'xero-csv':
      return [
        csvRecord(['Date', 'Amount', 'Payee', 'Description', 'Reference']),
        ...entries.flatMap((entry) => {
          const amount = bankAmount(entry, bank)
          return amount === null
            ? []
            : [
                csvRecord([
                  lineDay(entry),
                  amountIn(amount, entry.currency),
                  entry.payer,
                  describe(entry),
                  entry.invoiceNumber ?? entry.paymentReference,
                ]),
              ]
        }),
      ].join('')
    case 'qbo-payments':
      return renderQboPayments(entries, bank, options.deposit ?? bank)
    case 'xero-payments':
      return renderXeroPayments(entries, bank, options.deposit ?? bank)
    case 'datev':
      if (!options.datev) {
        throw new DomainError(
          'invalid',
          'datev_options_missing',
          'A DATEV batch needs its consultant and client.',
        )
      }
      return renderDatev(entries, options.datev.period, options.datev, options.datev.created)
  }
}

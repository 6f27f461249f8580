import { Decimal } from 'decimal.js'
import { csvRecord } from '../mirror-export/index.js'
import { journalTotals, money, type JournalEntry } from './journal-entries.js'

export const JOURNAL_FORMATS = ['json', 'csv', 'qbo-csv', 'xero-csv'] as const
export type JournalFormat = (typeof JOURNAL_FORMATS)[number]

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
function usDate(at: string): string {
  return `${at.slice(5, 7)}/${at.slice(8, 10)}/${at.slice(0, 4)}`
}

/**
 * The journal as a file: `json` (entries with their lines and the totals per currency), `csv` (one line per
 * row), and the bank-line uploads of QuickBooks Online (`qbo-csv`: its 3-column Date, Description, Amount) and
 * Xero (`xero-csv`: Date, Amount, Payee, Description, Reference): one row per entry that moved the bank account.
 * Text cells are formula-safe (csvRecord).
 */
export function renderJournal(entries: readonly JournalEntry[], format: JournalFormat, bank: string): string {
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
          return amount === null ? [] : [csvRecord([usDate(entry.at), describe(entry), money(amount)])]
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
                  entry.at.slice(0, 10),
                  money(amount),
                  entry.payer,
                  describe(entry),
                  entry.invoiceNumber ?? entry.paymentReference,
                ]),
              ]
        }),
      ].join('')
  }
}

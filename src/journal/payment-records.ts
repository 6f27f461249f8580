import { csvRecord } from '../mirror-export/index.js'
import { amountIn } from './currency-decimals.js'
import type { JournalEntry } from './journal-entries.js'

/**
 * Customer payments applied to invoices, one row per settlement (a payment's allocation to one invoice), for the
 * accounting system to record against its own open invoice. Credit applied, dispositions and write-offs are not
 * payments; a reversal is not either: delete the payment in the accounting system (the json and csv journals
 * list reversals). The date is the bank's posting date.
 */
function settlements(entries: readonly JournalEntry[]): JournalEntry[] {
  return entries.filter((entry) => entry.kind === 'settlement')
}

/** What the bank received for the invoice: the bank line of the entry (its write-off is not cash). */
function received(entry: JournalEntry, bank: string): string {
  const line = entry.lines.find((item) => item.account === bank)
  return line ? line.debit : '0'
}

const day = (entry: JournalEntry) => entry.postedDate ?? entry.at.slice(0, 10)
const cut = (value: string | null, length: number) => (value === null ? null : value.slice(0, length))

/**
 * QuickBooks Online has no built-in payment import; Transaction Pro Importer's "Receive Payment" import, a
 * common tool for it, reads these columns, its published field limits applied: RefNumber (31,
 * unique per row), TxnDate (MM/DD/YYYY), PaymentRefNumber (31), Customer (100), DepositToAccount (100),
 * InvoiceApplyTo (21), LineAmount, PrivateNote (4000), Currency (3).
 */
export const QBO_PAYMENT_COLUMNS = [
  'RefNumber',
  'TxnDate',
  'PaymentRefNumber',
  'Customer',
  'DepositToAccount',
  'InvoiceApplyTo',
  'LineAmount',
  'PrivateNote',
  'Currency',
] as const

export function renderQboPayments(entries: readonly JournalEntry[], bank: string, deposit: string): string {
  return [
    csvRecord(QBO_PAYMENT_COLUMNS),
    ...settlements(entries).map((entry) => {
      const date = day(entry)
      return csvRecord([
        cut(entry.id, 31),
        `${date.slice(5, 7)}/${date.slice(8, 10)}/${date.slice(0, 4)}`,
        cut(entry.paymentReference ?? entry.transactionId, 31),
        cut(entry.customer ?? entry.payer, 100),
        cut(deposit, 100),
        cut(entry.invoiceNumber, 21),
        amountIn(received(entry, bank), entry.currency),
        cut(`${entry.memo}; payer ${entry.payer ?? 'unknown'}; bank line ${entry.transactionId}`, 4000),
        entry.currency,
      ])
    }),
  ].join('')
}

/**
 * Xero has no built-in payment import either; these are the fields of its Payments API (Invoice.InvoiceNumber,
 * Account.Code, Date as YYYY-MM-DD, Amount, Reference) that import tools map a file onto, with the contact and
 * currency to check against: ContactName, InvoiceNumber, Date, Amount, AccountCode, Reference, CurrencyCode.
 */
export const XERO_PAYMENT_COLUMNS = [
  'ContactName',
  'InvoiceNumber',
  'Date',
  'Amount',
  'AccountCode',
  'Reference',
  'CurrencyCode',
] as const

export function renderXeroPayments(entries: readonly JournalEntry[], bank: string, deposit: string): string {
  return [
    csvRecord(XERO_PAYMENT_COLUMNS),
    ...settlements(entries).map((entry) =>
      csvRecord([
        entry.customer ?? entry.payer,
        entry.invoiceNumber,
        day(entry),
        amountIn(received(entry, bank), entry.currency),
        deposit,
        entry.paymentReference ?? entry.transactionId,
        entry.currency,
      ]),
    ),
  ].join('')
}

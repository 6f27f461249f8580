import { Decimal } from 'decimal.js'
import type { JournalAllocationRow, JournalCreditNoteRow, JournalDispositionRow } from '../store/index.js'

/** The ledger accounts the journal books to; a disposition names its own account. */
export type JournalAccounts = {
  bank: string
  receivables: string
  /** Where an allocation's write-off goes when the allocation names no account (rows before migration 0018). */
  writeOff: string
  /** The liability customer credit on account is kept in (a disposition `on_account` books to its own account). */
  customerCredit: string
}

export const DEFAULT_JOURNAL_ACCOUNTS: JournalAccounts = {
  bank: 'Bank',
  receivables: 'Accounts Receivable',
  writeOff: 'Write-offs',
  customerCredit: 'Customer credit',
}

export type JournalLine = {
  account: string
  /** Decimal strings; one of them is "0". */
  debit: string
  credit: string
}

export type JournalEntryKind =
  | 'settlement'
  | 'settlement_reversed'
  | 'credit_applied'
  | 'credit_applied_reversed'
  | 'disposition'
  | 'disposition_undone'
  | 'invoice_write_off'
  | 'invoice_write_off_undone'
  | 'credit_note'
  | 'credit_note_voided'

/** One balanced double entry, with the references an accountant matches it by. */
export type JournalEntry = {
  id: string
  /** When bankrec recorded it (ISO timestamp); entries are never back-dated, so a closed period stays closed. */
  at: string
  kind: JournalEntryKind
  currency: string
  /** null for a write-off of an invoice's rest: no payment took part. */
  transactionId: string | null
  bankAccountId: string | null
  paymentReference: string | null
  payer: string | null
  /** The bank's posting date of the payment (YYYY-MM-DD): the date its bank line and payment record carry. */
  postedDate: string | null
  /** The invoice's customer (a settlement's). */
  customer: string | null
  invoiceId: string | null
  invoiceNumber: string | null
  /** For a disposition: its kind and the person's reason. */
  memo: string
  lines: JournalLine[]
}

/** At least two decimals, never rounded (some currencies have three). */
export function money(value: Decimal): string {
  return value.decimalPlaces() < 2 ? value.toFixed(2) : value.toFixed()
}

const line = (account: string, debit: Decimal, credit: Decimal): JournalLine => ({
  account,
  debit: money(debit),
  credit: money(credit),
})

/** The same entry the other way round: a reversal or an undo. */
function reversed(entry: JournalEntry, kind: JournalEntryKind, at: Date): JournalEntry {
  return {
    ...entry,
    id: `${entry.id}-r`,
    at: at.toISOString(),
    kind,
    lines: entry.lines.map((item) => ({ account: item.account, debit: item.credit, credit: item.debit })),
  }
}

function allocationEntry(row: JournalAllocationRow, accounts: JournalAccounts): JournalEntry {
  const amount = new Decimal(row.amount)
  const credit = row.rule === 'credit'
  // A credit note is booked when it comes in force (creditNoteEntry); the settlement that nets it books only money.
  const writeOff = row.write_off_reason === 'credit_note' ? new Decimal(0) : new Decimal(row.write_off)
  const lines = [
    line(credit ? accounts.customerCredit : accounts.bank, amount, new Decimal(0)),
    ...(writeOff.gt(0) ? [line(row.write_off_account ?? accounts.writeOff, writeOff, new Decimal(0))] : []),
    line(accounts.receivables, new Decimal(0), amount.plus(writeOff)),
  ]
  return {
    id: `a${row.id}`,
    at: row.created_at.toISOString(),
    kind: credit ? 'credit_applied' : 'settlement',
    currency: row.currency ?? '',
    transactionId: row.transaction_id,
    bankAccountId: row.account_id,
    paymentReference: row.payment_reference,
    payer: row.counterparty_name,
    postedDate: row.posted_date,
    customer: row.customer_name,
    invoiceId: row.invoice_id,
    invoiceNumber: row.invoice_number,
    memo: credit
      ? 'customer credit applied'
      : `payment applied (${row.rule})${row.write_off_reason ? `, rest written off: ${row.write_off_reason}` : ''}`,
    lines,
  }
}

/** Receivables lowered without a bank line: `account` takes what the invoice's receivable no longer holds. */
function receivablesOut(
  row: {
    id: string | number
    in_force_at: Date
    currency: string
    invoice_id: string | null
    invoice_number: string | null
  },
  entry: { id: string; kind: JournalEntryKind; account: string; amount: string; memo: string },
  accounts: JournalAccounts,
): JournalEntry {
  const amount = new Decimal(entry.amount)
  return {
    id: entry.id,
    at: row.in_force_at.toISOString(),
    kind: entry.kind,
    currency: row.currency,
    transactionId: null,
    bankAccountId: null,
    paymentReference: null,
    payer: null,
    postedDate: null,
    customer: null,
    invoiceId: row.invoice_id,
    invoiceNumber: row.invoice_number,
    memo: entry.memo,
    lines: [line(entry.account, amount, new Decimal(0)), line(accounts.receivables, new Decimal(0), amount)],
  }
}

/** A person's write-off of an invoice's open rest: the write-off account takes it. */
function invoiceWriteOffEntry(row: JournalDispositionRow, accounts: JournalAccounts): JournalEntry {
  const memo = `invoice rest written off: ${row.reason}${row.note ? ` (${row.note})` : ''}`
  return receivablesOut(
    row,
    { id: `d${row.id}`, kind: 'invoice_write_off', account: row.account, amount: row.amount, memo },
    accounts,
  )
}

/** A credit note in force: the credit-note account takes it (issue 26). */
function creditNoteEntry(row: JournalCreditNoteRow, accounts: JournalAccounts): JournalEntry {
  const account = row.account ?? accounts.writeOff
  const memo = `credit note ${row.number}`
  return receivablesOut(
    row,
    { id: `c${row.id}`, kind: 'credit_note', account, amount: row.amount, memo },
    accounts,
  )
}

function dispositionEntry(row: JournalDispositionRow, accounts: JournalAccounts): JournalEntry {
  if (row.invoice_id !== null) return invoiceWriteOffEntry(row, accounts)
  const amount = new Decimal(row.amount)
  return {
    id: `d${row.id}`,
    at: row.in_force_at.toISOString(),
    kind: 'disposition',
    currency: row.currency,
    transactionId: row.transaction_id,
    bankAccountId: row.account_id,
    paymentReference: row.payment_reference,
    payer: row.counterparty_name,
    postedDate: row.posted_date,
    customer: null,
    invoiceId: null,
    invoiceNumber: null,
    memo: `${row.kind}: ${row.reason}`,
    lines: [line(accounts.bank, amount, new Decimal(0)), line(row.account, new Decimal(0), amount)],
  }
}

/**
 * The double entries of a period (issue 16): each settled allocation debits the bank (customer credit, for credit
 * applied) and credits receivables, its write-off debiting the write-off account; each disposition in force
 * debits the bank and credits the account it was booked to (a write-off of an invoice's rest debits its account
 * and credits receivables); each credit note in force debits its account and credits receivables (its settlement
 * then books only the money); a reversal, undo or void in the period books the same
 * entry the other way round. Every entry balances. Only what happened in [from, to) is booked.
 */
export function journalEntries(
  rows: {
    allocations: readonly JournalAllocationRow[]
    dispositions: readonly JournalDispositionRow[]
    creditNotes?: readonly JournalCreditNoteRow[]
  },
  period: { from: Date; to: Date },
  accounts: JournalAccounts = DEFAULT_JOURNAL_ACCOUNTS,
): JournalEntry[] {
  const within = (at: Date | null): at is Date => at !== null && at >= period.from && at < period.to
  const entries: JournalEntry[] = []
  for (const row of rows.allocations) {
    const entry = allocationEntry(row, accounts)
    if (within(row.created_at)) entries.push(entry)
    if (within(row.reversed_at)) {
      entries.push(
        reversed(
          entry,
          row.rule === 'credit' ? 'credit_applied_reversed' : 'settlement_reversed',
          row.reversed_at,
        ),
      )
    }
  }
  for (const row of rows.dispositions) {
    const entry = dispositionEntry(row, accounts)
    if (within(row.in_force_at)) entries.push(entry)
    const undone = row.invoice_id === null ? 'disposition_undone' : 'invoice_write_off_undone'
    if (within(row.undone_at)) entries.push(reversed(entry, undone, row.undone_at))
  }
  for (const row of rows.creditNotes ?? []) {
    const entry = creditNoteEntry(row, accounts)
    if (within(row.in_force_at)) entries.push(entry)
    if (within(row.voided_at)) entries.push(reversed(entry, 'credit_note_voided', row.voided_at))
  }
  return entries.sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? -1 : 1))
}

/** Debits and credits of entries, per currency: equal when the journal balances. */
export function journalTotals(
  entries: readonly JournalEntry[],
): Record<string, { debit: string; credit: string }> {
  const totals = new Map<string, { debit: Decimal; credit: Decimal }>()
  for (const entry of entries) {
    const total = totals.get(entry.currency) ?? { debit: new Decimal(0), credit: new Decimal(0) }
    for (const item of entry.lines) {
      total.debit = total.debit.plus(item.debit)
      total.credit = total.credit.plus(item.credit)
    }
    totals.set(entry.currency, total)
  }
  return Object.fromEntries(
    [...totals]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([currency, t]) => [currency, { debit: money(t.debit), credit: money(t.credit) }]),
  )
}

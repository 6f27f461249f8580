import type { MatchInvoice, MatchTransaction, MatchTransactionStatus } from '../matcher/index.js'
import type { InvoiceRow, MatchTransactionRow } from '../../store/index.js'

const STATUSES: ReadonlySet<string> = new Set(['pending', 'posted', 'reversed', 'cancelled', 'unknown'])

/** A mirrored row as the matcher reads it; null when it has no amount to match. */
export function matchTransactionOf(row: MatchTransactionRow): MatchTransaction | null {
  if (row.amount === null || row.currency === null) return null
  return {
    id: row.id,
    accountId: row.account_id,
    entityId: row.entity_id,
    amount: row.amount,
    currency: row.currency,
    status: (STATUSES.has(row.status ?? '') ? row.status : 'unknown') as MatchTransactionStatus,
    postedDate: row.posted_date,
    updatedAt: row.updated_at ? row.updated_at.toISOString() : null,
    paymentReference: row.payment_reference,
    customerReference: row.customer_reference,
    description: row.description,
    rawDescription: row.raw_description,
    counterpartyName: row.counterparty_name,
  }
}

export function matchInvoiceOf(row: InvoiceRow): MatchInvoice {
  return {
    id: row.id,
    number: row.number,
    amount: row.amount,
    currency: row.currency,
    customerName: row.customer_name,
    customerAliases: row.customer_aliases,
    issueDate: row.issue_date,
    dueDate: row.due_date,
    entityId: row.entity_id,
    accountId: row.account_id,
    void: row.voided_at !== null,
  }
}

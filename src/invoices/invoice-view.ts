import type { InvoiceStatus } from '../reconcile/matcher/index.js'
import type { InvoiceRow, InvoiceStateColumns } from '../store/index.js'

/** An invoice as the API and the library return it. Amounts are decimal strings; dates ISO strings. */
export type Invoice = {
  id: string
  number: string
  amount: string
  currency: string
  customerName: string | null
  customerAliases: string[]
  issueDate: string | null
  dueDate: string | null
  entityId: string | null
  accountId: string | null
  metadata: Record<string, unknown> | null
  /** The customer of the master data (GET /api/customers/{id}). */
  customerId: string | null
  /** The payment reference printed on the invoice. */
  paymentReference: string | null
  status: InvoiceStatus
  /** Settled allocations, never more than the amount. */
  amountPaid: string
  /** Tentative allocations from pending inflows; they never change the status. */
  amountPending: string
  /** amount − amountPaid − amountWrittenOff. */
  amountOpen: string
  amountOverpaid: string
  /** Fee tolerance write-offs. */
  amountWrittenOff: string
  /** Grows by one with every change of the caller's fields (and with void). */
  version: number
  voidedAt: string | null
  createdAt: string
  updatedAt: string
}

/**
 * An invoice with its derived amounts. Matching keeps those; an invoice it has not looked at yet is open with
 * nothing paid. A void invoice is `void` whatever was paid.
 */
export function invoiceView(row: InvoiceRow, derived?: InvoiceStateColumns | null): Invoice {
  const voided = row.voided_at !== null
  const status = voided ? 'void' : ((derived?.status as InvoiceStatus | undefined) ?? 'open')
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
    metadata: row.metadata,
    customerId: row.customer_id,
    paymentReference: row.payment_reference,
    status,
    amountPaid: derived?.amount_paid ?? '0',
    amountPending: derived?.amount_pending ?? '0',
    amountOpen: derived?.amount_open ?? (voided ? '0' : row.amount),
    amountOverpaid: derived?.amount_overpaid ?? '0',
    amountWrittenOff: derived?.amount_written_off ?? '0',
    version: Number(row.version),
    voidedAt: row.voided_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

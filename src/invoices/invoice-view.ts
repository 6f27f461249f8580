import { Decimal } from 'decimal.js'
import type { InvoiceStatus } from '../matcher/index.js'
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
  /** Early-payment discount terms (docs/closing.md); null without. */
  earlyPaymentDiscount: { percent: string; until: string } | null
  /** The sum of the credit notes netted against the invoice. */
  amountCredited: string
  status: InvoiceStatus
  /** Settled allocations, never more than the amount. */
  amountPaid: string
  /** Tentative allocations from pending inflows; they never change the status. */
  amountPending: string
  /** amount − amountPaid − amountWrittenOff − credit notes not yet booked. */
  amountOpen: string
  amountOverpaid: string
  /**
   * Residuals written off: fees, discounts, credit notes booked with a payment, and a person's write-offs of the
   * open rest (docs/closing.md).
   */
  amountWrittenOff: string
  /** Grows by one with every change of the caller's fields (and with void). */
  version: number
  voidedAt: string | null
  createdAt: string
  updatedAt: string
}

/** What is open before matching looked at the invoice: the amount less its credit notes and a person's write-offs. */
function openBeforeMatching(row: InvoiceRow): string {
  if (new Decimal(row.credited).isZero() && new Decimal(row.written_off).isZero()) return row.amount
  const open = new Decimal(row.amount).minus(row.credited).minus(row.written_off)
  return (open.isNegative() ? new Decimal(0) : open).toFixed()
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
    earlyPaymentDiscount:
      row.discount_percent === null || row.discount_until === null
        ? null
        : { percent: row.discount_percent, until: row.discount_until },
    amountCredited: row.credited,
    status,
    amountPaid: derived?.amount_paid ?? '0',
    amountPending: derived?.amount_pending ?? '0',
    amountOpen: derived?.amount_open ?? (voided ? '0' : openBeforeMatching(row)),
    amountOverpaid: derived?.amount_overpaid ?? '0',
    amountWrittenOff: derived?.amount_written_off ?? row.written_off,
    version: Number(row.version),
    voidedAt: row.voided_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

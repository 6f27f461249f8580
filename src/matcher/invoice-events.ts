import { Decimal } from 'decimal.js'
import type { InvoiceStatus } from './types.js'

export type InvoiceEventType =
  'invoice.paid' | 'invoice.partially_paid' | 'invoice.overpaid' | 'invoice.reopened'

/**
 * The app event an invoice's change of state sends, if any: reaching paid or overpaid; partially_paid when more
 * settled money arrived; reopened when settled money went away from a paid, overpaid or partially paid invoice.
 * Pending money never changes the status (rule 7), so it sends nothing.
 */
export function invoiceEventType(
  before: { status: string; amountPaid: string } | null,
  after: { status: InvoiceStatus; amountPaid: string },
): InvoiceEventType | null {
  const previous = before?.status ?? 'open'
  if (after.status === 'void') return null
  const morePaid = !before || !new Decimal(before.amountPaid).equals(after.amountPaid)
  if (after.status === previous && (after.status !== 'partially_paid' || !morePaid)) return null
  switch (after.status) {
    case 'paid':
      return 'invoice.paid'
    case 'overpaid':
      return 'invoice.overpaid'
    case 'partially_paid':
      return previous === 'paid' || previous === 'overpaid' ? 'invoice.reopened' : 'invoice.partially_paid'
    case 'open':
      return previous === 'open' || previous === 'void' ? null : 'invoice.reopened'
  }
}

import { createHash } from 'node:crypto'
import { Decimal } from 'decimal.js'
import type { InvoiceStatus } from '../matcher/index.js'

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

/**
 * A stable event id: the same fact (the same invoice reaching the same state with the same allocations, the nth
 * time its status changed) always gets the same id, so a replayed run never sends a second event.
 */
export function stableEventId(...parts: readonly string[]): string {
  return `evt_${createHash('sha256').update(parts.join('\u001f')).digest('hex').slice(0, 40)}`
}

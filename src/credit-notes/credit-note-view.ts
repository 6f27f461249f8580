import type { CreditNoteRow } from '../store/index.js'

/** A credit note as the API and the library return it. */
export type CreditNote = {
  id: string
  number: string
  amount: string
  currency: string
  customerId: string | null
  invoiceId: string
  /** The chart's credit-note account it books to (null: written before the chart; the journal's default). */
  account: string | null
  /** `pending_approval` nets nothing until a second person approves it; `declined` never did. */
  status: 'pending_approval' | 'active' | 'declined'
  madeBy: string | null
  approvedBy: string | null
  declinedBy: string | null
  voidedBy: string | null
  version: number
  voidedAt: string | null
  createdAt: string
  updatedAt: string
}

export function creditNoteView(row: CreditNoteRow): CreditNote {
  return {
    id: row.id,
    number: row.number,
    amount: row.amount,
    currency: row.currency,
    customerId: row.customer_id,
    invoiceId: row.invoice_id,
    account: row.account,
    status: row.status,
    madeBy: row.made_by,
    approvedBy: row.status === 'active' ? row.decided_by : null,
    declinedBy: row.status === 'declined' ? row.decided_by : null,
    voidedBy: row.voided_by,
    version: Number(row.version),
    voidedAt: row.voided_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

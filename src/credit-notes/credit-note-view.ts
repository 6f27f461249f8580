import type { CreditNoteRow } from '../store/index.js'

/** A credit note as the API and the library return it. */
export type CreditNote = {
  id: string
  number: string
  amount: string
  currency: string
  customerId: string | null
  invoiceId: string
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
    version: Number(row.version),
    voidedAt: row.voided_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

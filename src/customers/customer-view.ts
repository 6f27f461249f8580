import type { CustomerLinkRow, CustomerRow } from '../store/index.js'

/** What a person's match taught about this customer's payers; DELETE removes it. */
export type LearnedLink = {
  id: string
  kind: 'account' | 'name'
  value: string
  transactionId: string | null
  invoiceId: string | null
  createdAt: string
}

/** A customer as the API and the library return it. */
export type Customer = {
  id: string
  name: string
  aliases: string[]
  bankAccounts: string[]
  learned: LearnedLink[]
  version: number
  createdAt: string
  updatedAt: string
}

export function customerView(row: CustomerRow, links: readonly CustomerLinkRow[]): Customer {
  return {
    id: row.id,
    name: row.name,
    aliases: row.aliases,
    bankAccounts: row.bank_accounts,
    learned: links.map((link) => ({
      id: link.id,
      kind: link.kind,
      value: link.value,
      transactionId: link.transaction_id,
      invoiceId: link.invoice_id,
      createdAt: link.created_at.toISOString(),
    })),
    version: Number(row.version),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

import type { Money } from './money.js'

/** An invoice (receivable) as the matcher sees it. `void: true` once the invoice was deleted (voided). */
export type MatchInvoice = {
  id: string
  number: string
  amount: Money
  currency: string
  customerName?: string | null
  customerAliases?: readonly string[] | null
  issueDate?: string | null
  dueDate?: string | null
  entityId?: string | null
  /** The account the invoice expects to be paid into; it breaks ties between invoices with the same number. */
  accountId?: string | null
  void?: boolean
}

export type MatchTransactionStatus = 'pending' | 'posted' | 'reversed' | 'cancelled' | 'unknown'

/** A mirrored bank transaction. `amount` is signed: positive is an inflow, negative an outflow (seed). */
export type MatchTransaction = {
  id: string
  accountId: string
  /** The entity owning the transaction's connection, when the caller knows it; it breaks reference ties. */
  entityId?: string | null
  amount: Money
  currency: string
  status: MatchTransactionStatus
  /** Deleted by a `removed` sync event: it has no allocations. */
  removed?: boolean
  postedDate?: string | null
  /** Of two versions of one transaction in the same input, the later `updatedAt` wins. */
  updatedAt?: string | null
  paymentReference?: string | null
  customerReference?: string | null
  description?: string | null
  rawDescription?: string | null
  counterpartyName?: string | null
}

/** The transaction fields read for invoice references, in the order rule 1 reads them. */
export const REFERENCE_FIELDS = [
  'paymentReference',
  'customerReference',
  'description',
  'rawDescription',
] as const
export type ReferenceField = (typeof REFERENCE_FIELDS)[number]

/** How a reference named its invoice: a token run of free text, an ISO 11649 RF reference or a SWIFT code. */
export type ReferenceVia = 'text' | 'rf' | 'swift'

/** A match a person made (or a suggestion a person accepted): fixed input to the matcher. */
export type ManualAllocation = {
  transactionId: string
  invoiceId: string
  amount: Money
}

/** A suggestion a person rejected: the same transaction is never again suggested for the same invoice set. */
export type RejectedSuggestion = {
  transactionId: string
  invoiceIds: readonly string[]
}

export type AllocationRule = 'reference' | 'suggestion' | 'manual'

/**
 * One proposed allocation of (part of) a transaction to an invoice. Its identity is (transactionId, invoiceId):
 * the store diffs proposals against what it holds, reverses what disappeared and records when.
 */
export type Allocation = {
  transactionId: string
  invoiceId: string
  /** Decimal string, > 0. */
  amount: string
  /** Fee tolerance (rule 6): the open rest written off with this allocation, decimal string, "0" when none. */
  writeOff: string
  /** false: a tentative allocation of a pending inflow, counted in amountPending only (rule 7). */
  settled: boolean
  rule: AllocationRule
  /** The transaction field the reference was read from; null for suggestions and manual allocations. */
  field: ReferenceField | null
  /** The text that named the invoice, as written in the field; null when none did. */
  reference: string | null
  via: ReferenceVia | null
  /** 0–100. */
  confidence: number
  madeBy: 'engine' | 'person'
}

export type MatchExceptionType =
  | 'unmatched_payment'
  | 'suggested_match'
  | 'overpayment'
  | 'currency_mismatch'
  | 'ambiguous_reference'
  | 'transfer_leg_missing'

/** Something a person should look at. `key` is stable while its cause lasts; the store resolves it when gone. */
export type MatchException = {
  key: string
  type: MatchExceptionType
  transactionId: string | null
  invoiceIds: string[]
  transferId: string | null
  /** The amount concerned (surplus, unmatched amount), decimal string; null when not about an amount. */
  amount: string | null
  /** For suggested_match: the score 0–100. */
  confidence: number | null
  /** false when it concerns a pending transaction. */
  settled: boolean
  reasons: string[]
}

export type InvoiceStatus = 'open' | 'partially_paid' | 'paid' | 'overpaid' | 'void'

/** An invoice's derived state; amounts are decimal strings. */
export type InvoiceState = {
  invoiceId: string
  status: InvoiceStatus
  /** Sum of settled allocations, never more than the amount. */
  amountPaid: string
  /** Sum of tentative allocations from pending inflows. */
  amountPending: string
  /** amount − amountPaid − amountWrittenOff. */
  amountOpen: string
  amountOverpaid: string
  amountWrittenOff: string
}

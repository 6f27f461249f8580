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
  /** The customer master record the invoice belongs to (`MatchCustomer.id`). */
  customerId?: string | null
  /** The payment reference printed on the invoice (RF, OGM, KID, Finnish, QR reference or free form). */
  paymentReference?: string | null
  /** Early-payment discount terms: paid net of `percent` % on or before `until` (ISO date), the invoice is paid. */
  earlyPaymentDiscount?: { percent: Money; until: string } | null
  /** The sum of the credit notes netted against the invoice (in its currency), decimal string. */
  credits?: Money | null
  /** A person's write-offs of the invoice's open rest in force (in its currency), decimal string: never open again. */
  writtenOff?: Money | null
}

/**
 * A customer of the master data: who pays invoices. Names compare as `nameKey` says; bank accounts (IBANs or
 * account numbers) against the bank's masked counterparty account. `learned` holds what a person's matches taught:
 * payer accounts (as the bank masked them) and names seen paying this customer's invoices.
 */
export type MatchCustomer = {
  id: string
  name: string
  aliases?: readonly string[] | null
  bankAccounts?: readonly string[] | null
  learnedAccounts?: readonly string[] | null
  learnedNames?: readonly string[] | null
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
  /** The payer's account as the bank shows it, often masked (`DE89 **** 3000`). */
  counterpartyAccountMasked?: string | null
  /** The bank's own tracking id: a number in the text equal to it is not an invoice reference. */
  bankReference?: string | null
}

/** The transaction fields read for invoice references, in the order rule 1 reads them. */
export const REFERENCE_FIELDS = [
  'paymentReference',
  'customerReference',
  'description',
  'rawDescription',
] as const
export type ReferenceField = (typeof REFERENCE_FIELDS)[number]

/**
 * The text of `REFERENCE_FIELDS[at]`, read by name: `transaction[field]` over transactions of many shapes is a slow
 * generic lookup on the matcher's hot path.
 */
export function referenceText(
  transaction: Pick<MatchTransaction, ReferenceField>,
  at: number,
): string | null | undefined {
  switch (at) {
    case 0:
      return transaction.paymentReference
    case 1:
      return transaction.customerReference
    case 2:
      return transaction.description
    default:
      return transaction.rawDescription
  }
}

/** The reference fields' texts in REFERENCE_FIELDS order. */
export function referenceTexts(
  transaction: Pick<MatchTransaction, ReferenceField>,
): [
  string | null | undefined,
  string | null | undefined,
  string | null | undefined,
  string | null | undefined,
] {
  return [
    referenceText(transaction, 0),
    referenceText(transaction, 1),
    referenceText(transaction, 2),
    referenceText(transaction, 3),
  ]
}

/**
 * How a reference named its invoice: a token run of free text, an ISO 11649 RF reference, a SWIFT code, a Belgian
 * structured communication (`ogm`), or the payment reference issued on the invoice (`issued`).
 */
export type ReferenceVia = 'text' | 'rf' | 'swift' | 'ogm' | 'issued'

/**
 * One piece of evidence for or against a match, as data: `code` is stable (docs/matching.md lists them), `points`
 * what it added to the score, `text` the reason in words. A `conflict` blocks applying the match unless
 * `explained` (other evidence accounts for it).
 */
export type Evidence = {
  code: string
  points: number
  text: string
  conflict?: 'explained' | 'unexplained'
}

/** A match a person made (or a suggestion a person accepted): fixed input to the matcher. */
export type ManualAllocation = {
  transactionId: string
  invoiceId: string
  amount: Money
  /** From a remittance advice: the invoice's rest, when exactly this much, is written off with the reason. */
  writeOff?: Money | null
  writeOffReason?: string | null
}

/** A suggestion a person rejected: the same transaction is never again suggested for the same invoice set. */
export type RejectedSuggestion = {
  transactionId: string
  invoiceIds: readonly string[]
}

/**
 * Why an invoice's rest was written off: a fee within tolerance or stated in the text (`bank_fee`, `psp_fee` for a
 * payout), an early-payment discount, a credit note netted against the invoice; the others are a person's
 * (`bad_debt` and `other` for an invoice's rest a person writes off).
 */
export const WRITE_OFF_REASONS = [
  'bank_fee',
  'psp_fee',
  'discount',
  'credit_note',
  'fx',
  'rounding',
  'short_payment',
  'bad_debt',
  'other',
] as const
export type WriteOffReason = (typeof WRITE_OFF_REASONS)[number]

/**
 * How a person disposed of (part of) a payment instead of matching it: written off to an account, booked to a
 * clearing or suspense account, refunded, kept on account as the customer's credit, or ignored as not
 * receivables.
 */
export type DispositionKind = 'write_off' | 'clearing' | 'refund' | 'on_account' | 'ignore'

/** A disposition in force: `amount` of the inflow is out of matching; credit on account pays `customerId`'s invoices. */
export type PaymentDisposition = {
  transactionId: string
  amount: Money
  kind: DispositionKind
  customerId?: string | null
}

/**
 * reference: the text named it; payer: a verified payer's unique exact amount; suggestion: auto-confirmed;
 * manual: a person's match; credit: customer credit kept on account.
 */
export type AllocationRule = 'reference' | 'payer' | 'suggestion' | 'manual' | 'credit'

/**
 * One proposed allocation of (part of) a transaction to an invoice. Its identity is (transactionId, invoiceId):
 * the store diffs proposals against what it holds, reverses what disappeared and records when.
 */
export type Allocation = {
  transactionId: string
  invoiceId: string
  /** Decimal string, > 0. */
  amount: string
  /** Residuals (docs/closing.md): the open rest written off with this allocation, decimal string, "0" when none. */
  writeOff: string
  /** Why it was written off; null without a write-off. */
  writeOffReason: WriteOffReason | null
  /** The ledger account the write-off is booked to (configuration); null without a write-off. */
  writeOffAccount: string | null
  /** false: a tentative allocation of a pending inflow, counted in amountPending only (rule 7). */
  settled: boolean
  rule: AllocationRule
  /** The transaction field the reference was read from; null for suggestions and manual allocations. */
  field: ReferenceField | null
  /** The text that named the invoice, as written in the field; null when none did. */
  reference: string | null
  via: ReferenceVia | null
  /** 0–100: the evidence score. */
  confidence: number
  madeBy: 'engine' | 'person'
  /** Why: every piece of evidence weighed (empty for a person's match). */
  evidence: Evidence[]
}

export type MatchExceptionType =
  | 'unmatched_payment'
  | 'suggested_match'
  | 'overpayment'
  | 'currency_mismatch'
  | 'ambiguous_reference'
  | 'transfer_leg_missing'
  | 'payment_returned'

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
  /** The evidence behind a suggestion or a return, as data; empty when the reasons say it all. */
  evidence: Evidence[]
}

/**
 * An outflow that returns (charges back) an earlier inflow: the inflow's allocations are reversed. A partial return
 * (less than the inflow) takes its amount off what the inflow paid the invoice it returns.
 */
export type PaymentReturn = {
  outflowTransactionId: string
  inflowTransactionId: string
  /** The invoices the returned inflow had paid; for a partial return, the one it reopens (or the candidates). */
  invoiceIds: string[]
  /** What went back out, a decimal string. */
  amount: string
  /** Less than the inflow: only `amount` of it is returned. */
  partial: boolean
  /** A partial return: the invoice it reopens; null when the return does not say which (nothing is reversed). */
  target: string | null
  evidence: Evidence[]
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
  /** amount − amountPaid − amountWrittenOff − credit notes not yet booked (a payment books them as written off). */
  amountOpen: string
  amountOverpaid: string
  amountWrittenOff: string
}

import type { ReferenceScheme } from './check-digits.js'
import type { MatchTransaction, ReferenceField, ReferenceVia } from './types.js'

/**
 * How a text named an invoice, strongest first: the payment reference issued on it; a structured reference (RF,
 * OGM) built from its number; a SWIFT /INV/ code; its whole number (with its prefix word, or a number of digits
 * only after a word for invoice); its number core (digits without or with another prefix word).
 */
export type HitKind = 'issued' | 'structured' | 'swift' | 'full' | 'core'

/** Why the text may mean something else by the number. */
export type TextConflict = {
  code:
    'reads_as_date' | 'reads_as_amount' | 'labelled' | 'customer_number' | 'bank_reference' | 'other_prefix'
  text: string
}

/** One place in a text that names invoices: the candidates (several when a number is shared) and how. */
export type ReferenceHit = {
  invoiceIds: string[]
  reference: string
  via: ReferenceVia
  kind: HitKind
  scheme: ReferenceScheme | null
  /** For structured references: whether the check digits add up (`invalid`: a typo, never applied). */
  checkDigits: 'valid' | 'invalid' | null
  /** A word for invoice (or No., #) stands before the number. */
  invoiceWord: boolean
  /** A core of fewer than 4 digits: it needs both the amount and the payer to agree. */
  short: boolean
  conflicts: readonly TextConflict[]
}

export type ReferenceSource = Pick<
  MatchTransaction,
  ReferenceField | 'accountId' | 'entityId' | 'bankReference'
>

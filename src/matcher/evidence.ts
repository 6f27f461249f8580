import { SCHEME_NAMES } from './check-digits.js'
import type { CustomerDirectory, PayerHow, PayerIdentity } from './customer-directory.js'
import type { ReferenceHit } from './find-references.js'
import type { CustomerKey } from './invoice-facts.js'
import type { Evidence, ReferenceField } from './types.js'

/**
 * Points per piece of evidence (docs/matching.md, "Evidence"). With the default threshold of 85 a whole number or
 * a structured reference applies on its own; a number core needs the amount or the payer to agree; a core of
 * fewer than 4 digits needs both.
 */
export const POINTS = {
  issued: 100,
  issuedFreeForm: 90,
  structured: 95,
  swift: 90,
  full: 90,
  structuredCore: 70,
  coreWithWord: 60,
  core: 55,
  shortCore: 25,
  typo: 40,
  amountExact: 30,
  amountTolerance: 20,
  payerVerified: 35,
  payerName: 30,
  payerOnly: 60,
} as const

export const DEFAULT_AUTO_APPLY_THRESHOLD = 85

/** No evidence: one shared empty list where a payment has none to add, not a new one each time. */
export const NO_EVIDENCE: readonly Evidence[] = []

const FIELD_NAMES: Record<ReferenceField, string> = {
  paymentReference: 'the payment reference',
  customerReference: 'the customer reference',
  description: 'the description',
  rawDescription: 'the raw description',
}

function referencePoints(hit: ReferenceHit): number {
  if (hit.checkDigits === 'invalid') return POINTS.typo
  // A switch, not a table of every kind's points: the table was an object per hit.
  switch (hit.kind) {
    case 'issued':
      return hit.checkDigits === 'valid' ? POINTS.issued : POINTS.issuedFreeForm
    case 'structured':
      return POINTS.structured
    case 'swift':
      return POINTS.swift
    case 'full':
      return POINTS.full
    case 'core':
      if (hit.via === 'rf' || hit.via === 'ogm') return POINTS.structuredCore
      return hit.short ? POINTS.shortCore : hit.invoiceWord ? POINTS.coreWithWord : POINTS.core
  }
}

/** How the text named the invoice, as evidence (with the text conflicts the hit carries). */
export function referenceEvidence(hit: ReferenceHit, field: ReferenceField, number: string): Evidence[] {
  const where = FIELD_NAMES[field]
  const written = `“${hit.reference}”`
  const scheme = hit.scheme ? SCHEME_NAMES[hit.scheme] : 'reference'
  const points = referencePoints(hit)
  const items: Evidence[] = []
  if (hit.checkDigits === 'invalid') {
    items.push({
      code: 'check_digits_invalid',
      points,
      text: `${where} holds ${written}, a ${scheme} whose check digits do not add up: probably a typo of invoice ${number}’s`,
      conflict: 'unexplained',
    })
  } else if (hit.kind === 'issued') {
    items.push({
      code: 'issued_reference',
      points,
      text: `${where} holds ${written}, the payment reference issued on invoice ${number}${hit.checkDigits === 'valid' ? ` (${scheme}, check digits valid)` : ''}`,
    })
  } else if (hit.kind === 'structured') {
    items.push({
      code: 'structured_reference',
      points,
      text: `${where} holds ${written}, a ${scheme} with valid check digits built from invoice number ${number}`,
    })
  } else if (hit.kind === 'swift') {
    items.push({
      code: 'swift_code',
      points,
      text: `${where} holds the SWIFT code ${written} naming invoice ${number}`,
    })
  } else if (hit.kind === 'full') {
    items.push({ code: 'full_number', points, text: `${where} holds invoice number ${number} as ${written}` })
  } else {
    const how =
      hit.via === 'rf' || hit.via === 'ogm'
        ? `a ${scheme} built from its number core`
        : hit.invoiceWord
          ? 'its number core after a word for invoice'
          : 'its number core without a word for invoice'
    items.push({
      code: hit.short ? 'short_number_core' : 'number_core',
      points,
      text: `${where} holds ${written}, ${how}, of invoice ${number}`,
    })
  }
  for (const conflict of hit.conflicts) {
    items.push({ code: `conflict_${conflict.code}`, points: 0, text: conflict.text, conflict: 'unexplained' })
  }
  return items
}

const PAYER_CODES: ReadonlyMap<PayerHow | null, string> = new Map([
  ['account', 'payer_account'],
  ['learned_account', 'payer_learned_account'],
  ['learned_name', 'payer_learned_name'],
  ['name', 'payer_name'],
])

/** The evidence code of a recognised payer: `payer_<how>` when verified, else `payer_name` (a constant, not built). */
export function payerCode(payer: PayerIdentity): string {
  if (payer.how === 'intermediary') return 'payer_intermediary'
  if (payer.customers.length === 0) return 'payer_unknown'
  if (payer.how === 'account_tail') return 'payer_account_tail'
  if (!payer.verified && (payer.how === 'account' || payer.how === 'learned_account'))
    return 'payer_account_unverified'
  return payer.verified ? (PAYER_CODES.get(payer.how) ?? `payer_${payer.how}`) : 'payer_name'
}

/** Whether the payer is the invoice's customer, someone else, or unknown. */
export function payerEvidence(
  payer: PayerIdentity,
  customerKey: CustomerKey | null,
  /** Names the invoice's customer, only when the payer is someone else (no closure per invoice weighed). */
  customers: Pick<CustomerDirectory, 'label'>,
  amountFits: boolean,
): Evidence | null {
  if (payer.how === 'intermediary') return { code: 'payer_intermediary', points: 0, text: payer.text }
  if (payer.customers.length === 0 || customerKey === null) return null
  if (payer.customers.length === 1 && payer.customers[0] === customerKey) {
    return {
      code: payerCode(payer),
      points: payer.verified ? POINTS.payerVerified : POINTS.payerName,
      text: payer.text,
    }
  }
  if (payer.customers.includes(customerKey)) return { code: 'payer_ambiguous', points: 0, text: payer.text }
  // A payment for another known customer's invoice (whichever of its customers the payer is): a third party
  // paying (explained by the exact amount) or a mistyped number that happens to be someone else's (never applied).
  return {
    code: 'conflict_other_customer',
    points: 0,
    text: `${payer.text}, but the invoice is ${customers.label(customerKey)}’s${amountFits ? '; the amount fits it exactly' : ''}`,
    conflict: amountFits ? 'explained' : 'unexplained',
  }
}

export function score(evidence: readonly Evidence[]): number {
  const total = evidence.reduce((sum, item) => sum + item.points, 0)
  return Math.max(0, Math.min(100, total))
}

export function hasUnexplainedConflict(evidence: readonly Evidence[]): boolean {
  return evidence.some((item) => item.conflict === 'unexplained')
}

export function reasonsOf(evidence: readonly Evidence[]): string[] {
  return evidence.map((item) => item.text)
}

/** The evidence of every weighed invoice, one item per text: where a text first stands, its last item. */
export function distinctTexts(weighed: ReadonlyArray<{ evidence: readonly Evidence[] }>): Evidence[] {
  // A few items: comparing texts (most differ in length) costs less than hashing each new string.
  const distinct: Evidence[] = []
  for (const { evidence } of weighed) {
    for (const item of evidence) {
      let seen = 0
      while (seen < distinct.length && (distinct[seen] as Evidence).text !== item.text) seen++
      distinct[seen] = item
    }
  }
  return distinct
}

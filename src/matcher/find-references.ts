import type { InvoiceIndex } from './invoice-index.js'
import { FieldScan } from './field-scan.js'
import { normalizeReference } from './normalize-reference.js'
import type { HitKind, ReferenceHit, ReferenceSource } from './reference-hit.js'
import { REFERENCE_FIELDS, referenceText, type ReferenceField } from './types.js'
import { unwrapRemittance } from './unwrap-remittance.js'

export type { HitKind, ReferenceHit, ReferenceSource, TextConflict } from './reference-hit.js'

/** What a transaction's reference fields name (rule 1), before the evidence is weighed. */
export type TransactionReferences =
  | { outcome: 'none' }
  | {
      outcome: 'named'
      field: ReferenceField
      hits: ReferenceHit[]
      /** Hits that read as something else while other hits of the field do not: not taken as references. */
      setAside: ReferenceHit[]
      /**
       * Clean references of the other fields to invoices the chosen field does not name (rule 11): a second
       * invoice the payment also settles when the amount is both together, else a conflict. Absent when none.
       */
      others?: OtherFieldHit[]
    }

/** A reference in another field than the one chosen. */
export type OtherFieldHit = { field: ReferenceField; hit: ReferenceHit }

const DIGIT = /\d/
const NONE: TransactionReferences = { outcome: 'none' }
const NO_OTHERS: OtherFieldHit[] = []

/** The rank of a whole invoice number. */
const FULL_RANK = 4

/**
 * How strongly a clean hit of each kind names its invoices. A switch, not a table: a table read by the hit's kind is
 * a keyed load of several names, which V8 serves by its slow generic lookup.
 */
function rankOf(kind: HitKind): number {
  switch (kind) {
    case 'issued':
      return 6
    case 'structured':
      return 5
    case 'swift':
    case 'full':
      return FULL_RANK
    case 'core':
      return 2
  }
}

function isClean(hit: ReferenceHit): boolean {
  return hit.conflicts.length === 0 && hit.checkDigits !== 'invalid'
}

/** How strongly a hit names its invoices: a typo 1, a hit that reads as something else 0.5, else by its kind. */
export function referenceStrength(hit: ReferenceHit): number {
  if (hit.checkDigits === 'invalid') return 1
  return hit.conflicts.length > 0 ? 0.5 : rankOf(hit.kind)
}

/** Reads one field, its wrapped lines read whole. */
function readField(index: InvoiceIndex, written: string, source: ReferenceSource): readonly ReferenceHit[] {
  const text = unwrapRemittance(written)
  const scan = new FieldScan(index, text, source)
  for (const part of normalizeReference(text)) {
    if (part.kind === 'code') scan.readCode(part)
    else scan.readText(part.tokens)
  }
  if (scan.hits.length > 1) scan.sortByStart()
  return scan.hits
}

function strengthOf(hits: readonly ReferenceHit[]): number {
  let strength = 0
  for (const hit of hits) strength = Math.max(strength, referenceStrength(hit))
  return strength
}

/** The clean hits of the fields not chosen that name invoices the chosen hits do not. */
function otherFieldHits(
  fields: ReadonlyArray<{ field: ReferenceField; hits: readonly ReferenceHit[] }>,
  chosen: ReferenceField,
  named: readonly ReferenceHit[],
): OtherFieldHit[] {
  const ids = new Set<string>()
  for (const hit of named) for (const id of hit.invoiceIds) ids.add(id)
  const others: OtherFieldHit[] = []
  for (const { field, hits } of fields) {
    if (field === chosen) continue
    for (const hit of hits) {
      if (!isClean(hit) || hit.invoiceIds.some((id) => ids.has(id))) continue
      for (const id of hit.invoiceIds) ids.add(id)
      others.push({ field, hit })
    }
  }
  return others
}

/**
 * Rule 1: reads paymentReference, customerReference, description and rawDescription, and takes the field whose
 * best reference is strongest (the first of equals). Every place that names invoices is a candidate, not a
 * decision: the evidence is weighed when the transaction is allocated. Numbers that read as something else (a
 * date, a labelled customer or order number) are set aside when the same field holds a clean reference. Clean
 * references of the other fields to other invoices are kept beside (rule 11: both settled, or a conflict).
 */
export function findReferences(index: InvoiceIndex, source: ReferenceSource): TransactionReferences {
  // The best field so far in three locals, not an object per field that names something.
  let bestField: ReferenceField | null = null
  let bestHits: readonly ReferenceHit[] = []
  let bestStrength = 0
  let fields: Array<{ field: ReferenceField; hits: readonly ReferenceHit[] }> | null = null
  for (let at = 0; at < REFERENCE_FIELDS.length; at++) {
    const field = REFERENCE_FIELDS[at] as ReferenceField
    const text = referenceText(source, at)
    // Once a field names an invoice by its whole number, a later field without digits names nothing more.
    if (!text || (bestField !== null && bestStrength >= FULL_RANK && !DIGIT.test(text))) continue
    const hits = readField(index, text, source)
    if (hits.length === 0) continue
    const strength = strengthOf(hits)
    if (bestField !== null) (fields ??= [{ field: bestField, hits: bestHits }]).push({ field, hits })
    if (bestField === null || strength > bestStrength) {
      bestField = field
      bestHits = hits
      bestStrength = strength
    }
  }
  if (bestField === null) return NONE
  const others = fields === null ? NO_OTHERS : otherFieldHits(fields, bestField, bestHits)
  let hits: ReferenceHit[]
  let setAside: ReferenceHit[] = []
  if (bestHits.every(isClean)) hits = bestHits as ReferenceHit[]
  else {
    const clean = bestHits.filter(isClean)
    hits = clean.length > 0 ? clean : [...bestHits]
    if (clean.length > 0) setAside = bestHits.filter((hit) => !clean.includes(hit))
  }
  return others.length > 0
    ? { outcome: 'named', field: bestField, hits, setAside, others }
    : { outcome: 'named', field: bestField, hits, setAside }
}

/** Every invoice a transaction's references may mean (to find the closed set it belongs to). */
export function referencedInvoiceIds(references: TransactionReferences): string[] {
  if (references.outcome === 'none') return []
  const { hits, setAside, others } = references
  if (hits.length === 1 && setAside.length === 0 && !others) return [...(hits[0] as ReferenceHit).invoiceIds]
  const ids = new Set<string>()
  for (const hit of hits) for (const id of hit.invoiceIds) ids.add(id)
  for (const hit of setAside) for (const id of hit.invoiceIds) ids.add(id)
  for (const { hit } of others ?? []) for (const id of hit.invoiceIds) ids.add(id)
  return [...ids]
}

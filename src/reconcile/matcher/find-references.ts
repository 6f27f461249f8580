import type { InvoiceIndex } from './invoice-index.js'
import { normalizeReference, type ReferencePart } from './normalize-reference.js'
import type { Token } from './tokenize.js'
import {
  REFERENCE_FIELDS,
  type MatchInvoice,
  type MatchTransaction,
  type ReferenceField,
  type ReferenceVia,
} from './types.js'

/** One invoice a reference named, with the text that named it as written. */
export type NamedInvoice = { invoiceId: string; reference: string; via: ReferenceVia }

/** What a transaction's reference fields name (rule 1). */
export type TransactionReferences =
  | { outcome: 'none' }
  | { outcome: 'named'; field: ReferenceField; invoices: NamedInvoice[] }
  | { outcome: 'ambiguous'; field: ReferenceField; reference: string; invoiceIds: string[] }

export type ReferenceSource = Pick<MatchTransaction, ReferenceField | 'accountId' | 'entityId'>

type Named = { candidates: readonly MatchInvoice[]; reference: string; via: ReferenceVia }

const NONE: TransactionReferences = { outcome: 'none' }

function slice(text: string, tokens: readonly Token[], start: number, end: number): string {
  return text.slice((tokens[start] as Token).start, (tokens[end - 1] as Token).end)
}

function scanned(index: InvoiceIndex, text: string, tokens: Token[], via: ReferenceVia): Named[] {
  return index.scan(tokens.map((token) => token.text)).map((match) => ({
    candidates: match.values,
    reference: slice(text, tokens, match.start, match.end),
    via,
  }))
}

function namedIn(index: InvoiceIndex, text: string, part: ReferencePart): Named[] {
  if (part.kind === 'text') return scanned(index, text, part.tokens, 'text')
  const candidates = index.withNumber(part.tokens.map((token) => token.text))
  if (candidates.length > 0) {
    return [{ candidates, reference: slice(text, part.tokens, 0, part.tokens.length), via: part.via }]
  }
  return part.exactOnly ? [] : scanned(index, text, part.tokens, part.via)
}

/**
 * Of several invoices with the same number, the one the payment can mean: a void one only when all are void;
 * then the one expecting payment into the transaction's account, then the one of the transaction's entity.
 * More than one left is an ambiguous reference.
 */
function narrow(candidates: readonly MatchInvoice[], source: ReferenceSource): readonly MatchInvoice[] {
  if (candidates.length === 1) return candidates
  const live = candidates.filter((invoice) => !invoice.void)
  if (live.length === 0) return [[...candidates].sort((a, b) => (a.id < b.id ? -1 : 1))[0] as MatchInvoice]
  const sameAccount = live.filter((invoice) => invoice.accountId && invoice.accountId === source.accountId)
  const pool = sameAccount.length > 0 ? sameAccount : live
  const sameEntity = source.entityId ? pool.filter((invoice) => invoice.entityId === source.entityId) : []
  return sameEntity.length > 0 ? sameEntity : pool
}

function referencesIn(
  index: InvoiceIndex,
  field: ReferenceField,
  text: string,
  source: ReferenceSource,
): TransactionReferences {
  const named = normalizeReference(text).flatMap((part) => namedIn(index, text, part))
  if (named.length === 0) return NONE
  const invoices: NamedInvoice[] = []
  const seen = new Set<string>()
  for (const { candidates, reference, via } of named) {
    const meant = narrow(candidates, source)
    if (meant.length > 1) {
      return { outcome: 'ambiguous', field, reference, invoiceIds: meant.map((invoice) => invoice.id).sort() }
    }
    const invoice = meant[0] as MatchInvoice
    if (seen.has(invoice.id)) continue
    seen.add(invoice.id)
    invoices.push({ invoiceId: invoice.id, reference, via })
  }
  return { outcome: 'named', field, invoices }
}

/**
 * Rule 1: reads paymentReference, customerReference, description and rawDescription in turn; the first field
 * that names at least one known invoice is used, naming its invoices in the order written.
 */
export function findReferences(index: InvoiceIndex, source: ReferenceSource): TransactionReferences {
  for (const field of REFERENCE_FIELDS) {
    const text = source[field]
    if (!text) continue
    const references = referencesIn(index, field, text, source)
    if (references.outcome !== 'none') return references
  }
  return NONE
}

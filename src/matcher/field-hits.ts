import { dateSpans, type Span } from './date-spans.js'
import type { InvoiceIndex } from './invoice-index.js'
import type { MatchInvoice } from './types.js'
import type { ReferenceHit, ReferenceSource, TextConflict } from './reference-hit.js'

/** A hit without conflicts shares this list (never written to: a hit's conflicts are read only). */
const NO_CONFLICTS: readonly TextConflict[] = []
const NO_HITS: readonly ReferenceHit[] = []

function idOf(invoice: MatchInvoice): string {
  return invoice.id
}

function digitsOf(text: string): string {
  return text.replace(/\D+/g, '')
}

/**
 * Of several invoices with the same number, the ones the payment can mean: a void one only when all are void;
 * then the ones whose number has the digits as written (leading zeros too: `0815` is not `815` when both exist);
 * then those expecting payment into the transaction's account, then those of the transaction's entity.
 */
function narrow(
  candidates: readonly MatchInvoice[],
  source: ReferenceSource,
  written: string,
): readonly MatchInvoice[] {
  if (candidates.length === 1) return candidates
  const all = candidates.filter((invoice) => !invoice.void)
  if (all.length === 0) return [[...candidates].sort((a, b) => (a.id < b.id ? -1 : 1))[0] as MatchInvoice]
  const digits = digitsOf(written)
  const printed = all.filter((invoice) => digitsOf(invoice.number) === digits)
  const live = printed.length > 0 ? printed : all
  const sameAccount = live.filter((invoice) => invoice.accountId && invoice.accountId === source.accountId)
  const pool = sameAccount.length > 0 ? sameAccount : live
  const sameEntity = source.entityId ? pool.filter((invoice) => invoice.entityId === source.entityId) : []
  return sameEntity.length > 0 ? sameEntity : pool
}

/** What a hit says besides the invoices it names and where it stands. */
export type HitFields = Pick<
  ReferenceHit,
  'via' | 'kind' | 'scheme' | 'checkDigits' | 'invoiceWord' | 'short'
>

/**
 * One field's text and the hits read from it so far: `hits` are the places that name invoices, `startOf` where
 * each stands in the text. The readers (free text, issued references, codes) add to it.
 */
export class FieldHits {
  private dates: Span[] | null = null
  // Most fields name one invoice or none: the list is made at the first hit, at its size (one pushed onto an empty
  // list is given room for 17).
  private list: ReferenceHit[] | null = null
  /** Where each hit starts in the text, beside `list`; made with it. */
  private starts: number[] | null = null

  constructor(
    readonly index: InvoiceIndex,
    readonly text: string,
    readonly source: ReferenceSource,
  ) {}

  /** The places that name invoices, in the order read (after `sortByStart`, in the order written). */
  get hits(): readonly ReferenceHit[] {
    return this.list ?? NO_HITS
  }

  /** Where hit `at` starts in the text (the hits themselves are what callers keep). */
  startOf(at: number): number {
    return (this.starts as number[])[at] as number
  }

  /** The dates written in the text, read once per field and only when a number needs them. */
  datesOf(): Span[] {
    return (this.dates ??= dateSpans(this.text))
  }

  hit(
    candidates: readonly MatchInvoice[],
    start: number,
    end: number,
    fields: HitFields,
    conflicts: readonly TextConflict[] = NO_CONFLICTS,
  ): void {
    const reference = this.text.slice(start, end)
    const meant = narrow(candidates, this.source, reference)
    const invoiceIds = meant.length === 1 ? [(meant[0] as MatchInvoice).id] : meant.map(idOf).sort()
    const hit: ReferenceHit = {
      via: fields.via,
      kind: fields.kind,
      scheme: fields.scheme,
      checkDigits: fields.checkDigits,
      invoiceWord: fields.invoiceWord,
      short: fields.short,
      invoiceIds,
      reference,
      conflicts,
    }
    if (this.list === null || this.starts === null) {
      this.list = [hit]
      this.starts = [start]
    } else {
      this.list.push(hit)
      this.starts.push(start)
    }
  }

  /** The hits in the order written (codes and text parts are read in order, a SWIFT value's text after it). */
  sortByStart(): void {
    const hits = this.list
    const starts = this.starts
    if (hits === null || starts === null) return
    let sorted = true
    for (let at = 1; at < hits.length && sorted; at++)
      sorted = (starts[at - 1] as number) <= (starts[at] as number)
    if (sorted) return
    const order = hits
      .map((hit, at) => ({ hit, start: starts[at] as number }))
      .sort((a, b) => a.start - b.start)
    order.forEach((item, at) => {
      hits[at] = item.hit
      starts[at] = item.start
    })
  }
}

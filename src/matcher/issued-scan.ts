import { validSchemes, type ReferenceScheme } from './check-digits.js'
import type { FieldHits } from './field-hits.js'
import { compactIssuedReference, compactReference, kidDashAt } from './invoice-number.js'
import { referenceTypos } from './match-keys.js'
import { labelBefore, wordBefore } from './number-labels.js'
import { STRUCTURED_LABELS } from './reference-words.js'
import type { TextConflict } from './reference-hit.js'
import type { TokenList } from './tokenize.js'
import type { MatchInvoice } from './types.js'

/** An issued reference and the invoices it was printed on. */
type Typo = { invoices: readonly MatchInvoice[]; scheme: ReferenceScheme | null }

function isAsciiLetters(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at) | 32
    if (code < 97 || code > 122) return false
  }
  return true
}

/** Whether at most one space stands between token `at` and the one before it. */
function spaceOrNothing(text: string, tokens: TokenList, at: number): boolean {
  const gapStart = tokens.end(at - 1)
  const gap = tokens.start(at) - gapStart
  return gap === 0 || (gap === 1 && text.charCodeAt(gapStart) === 32)
}

function labelledStructured(tokens: TokenList, at: number): boolean {
  const word = wordBefore(tokens, at)
  return word !== null && STRUCTURED_LABELS.has(word)
}

/**
 * A payment reference issued on an invoice, written as one token or as digit groups (`12 34561`,
 * `21 00000 00003 13947 14300 09017`). A labelled national reference whose check digit fails is looked up as a
 * typo of an issued one. Marks the tokens it reads in `taken`.
 */
export function readIssued(scan: FieldHits, tokens: TokenList, taken: boolean[]): void {
  const { index, text } = scan
  for (let from = 0; from < tokens.length; from++) {
    if (taken[from]) continue
    let to = from + 1
    const digits = tokens.isDigits(from)
    if (digits) {
      while (to < tokens.length && tokens.isDigits(to) && spaceOrNothing(text, tokens, to)) to++
    }
    // The longest run of groups that is an issued reference, down to one token. Lengths no invoice's reference
    // has are skipped without building the string: most tokens are never looked up. A run of digit groups is
    // all digits, as are its typos: only a reference of digits that long can be it.
    let length = 0
    for (let at = from; at < to; at++) length += tokens.end(at) - tokens.start(at)
    for (let end = to; end > from; end--) {
      const start = tokens.start(from)
      const stop = tokens.end(end - 1)
      // A KID's mod-11 check digit `-` right after its digits is part of it.
      const dash = tokens.isDigits(end - 1) && kidDashAt(text, stop)
      // A word of ASCII letters is its own compact form (upper-cased): only a reference of letters that long can
      // be it. Most words are not looked up in the map of every issued reference, and a length no reference has
      // (references of letters are counted among all) is told without reading the word's letters.
      const known = digits
        ? index.hasIssuedDigitsLength(length)
        : index.hasIssuedLength(length) &&
          (!isAsciiLetters(text, start, tokens.end(from)) || index.hasIssuedLettersLength(length))
      if (known || (dash && index.hasIssuedLength(length + 1))) {
        // One run of digits is its own compact form.
        const compact =
          end === from + 1 && digits ? text.slice(start, stop) : compactReference(text.slice(start, stop))
        const withDash = dash ? index.withIssuedReference(`${compact}-`) : []
        const found = withDash.length > 0 ? withDash : index.withIssuedReference(compact)
        if (found.length > 0) {
          for (let at = from; at < end; at++) taken[at] = true
          if (withDash.length > 0) issuedHit(scan, found, `${compact}-`, start, stop + 1)
          else issuedHit(scan, found, compact, start, stop)
          from = end - 1
          break
        }
        const written = dash ? `${compact}-` : compact
        const typo = end === to && labelledStructured(tokens, from) ? typoOf(scan, written) : null
        if (typo) {
          for (let at = from; at < end; at++) taken[at] = true
          scan.hit(typo.invoices, start, dash ? stop + 1 : stop, {
            via: 'issued',
            kind: 'issued',
            scheme: typo.scheme,
            checkDigits: 'invalid',
            invoiceWord: false,
            short: false,
          })
          from = end - 1
          break
        }
      }
      length -= stop - tokens.start(end - 1)
    }
  }
}

/** A hit on an issued reference `compact` found at text[start, end). */
export function issuedHit(
  scan: FieldHits,
  found: readonly MatchInvoice[],
  compact: string,
  start: number,
  end: number,
): void {
  const schemes = validSchemes(compact)
  // An issued reference under another label (`PO RF35A1001`, `Kunden-Nr. 4000900110`) is that label's number.
  const label = labelBefore(scan.text, start)
  const conflicts: TextConflict[] = label
    ? [
        {
          code: 'labelled',
          text: `“${scan.text.slice(start, end)}” follows “${label.word}”: it reads as ${label.name}`,
        },
      ]
    : []
  scan.hit(
    found,
    start,
    end,
    {
      via: 'issued',
      kind: 'issued',
      scheme: schemes[0] ?? null,
      checkDigits: schemes.length > 0 ? 'valid' : null,
      invoiceWord: false,
      short: false,
    },
    conflicts,
  )
}

/**
 * The issued reference `compact` was probably meant as: the one differing in one digit or by two neighbouring
 * digits swapped, when `compact` itself passes no check. Only worth trying for lengths some invoice carries.
 */
export function typoOf(scan: FieldHits, compact: string): Typo | null {
  const { index } = scan
  if (!/^\d{4,27}-?$/.test(compact) || validSchemes(compact).length > 0) return null
  // A KID's `-` may be dropped or added: its typos are one character longer or shorter.
  const lengths = [compact.length - 1, compact.length, compact.length + 1]
  if (!lengths.some((length) => index.hasIssuedLength(length))) return null
  const found = new Map<string, MatchInvoice>()
  for (const variant of referenceTypos(compact)) {
    for (const invoice of index.withIssuedReference(variant)) found.set(invoice.id, invoice)
  }
  if (found.size === 0) return null
  const invoices = [...found.values()]
  const scheme = validSchemes(compactIssuedReference(invoices[0]?.paymentReference ?? ''))[0] ?? null
  return { invoices, scheme }
}

import type { ReferenceScheme } from './check-digits.js'
import { FieldHits, type HitFields } from './field-hits.js'
import { factsOf } from './invoice-facts.js'
import { issuedHit, readIssued, typoOf } from './issued-scan.js'
import type { ReferencePart } from './normalize-reference.js'
import { conflictsOf, invoiceWordLevel, otherPrefixOf } from './number-context.js'
import { rfCheckDigits } from './rf-reference.js'
import type { TokenList } from './tokenize.js'
import type { MatchInvoice } from './types.js'
import type { ReferenceHit } from './reference-hit.js'

const SHORT_CORE_DIGITS = 4

/** A whole number with letters in it (`INV-100123`): the same fields every time, one object for all such hits. */
const WORDED_NUMBER: HitFields = {
  via: 'text',
  kind: 'full',
  scheme: null,
  checkDigits: null,
  invoiceWord: true,
  short: false,
}

// The taken flags of a text, reused: `readText` runs once or twice per field and never inside itself. Only the first
// `tokens.length` flags are read.
const TAKEN: boolean[] = []

/** The digits of the digit tokens keys[from, to) together (token keys have no leading zeros). */
function digitCount(keys: readonly string[], from: number, to: number): number {
  let digits = 0
  for (let index = from; index < to; index++) digits += (keys[index] as string).length
  return digits
}

function anyTaken(taken: readonly boolean[], from: number, to: number): boolean {
  for (let index = from; index < to; index++) if (taken[index]) return true
  return false
}

function safeRfCheckDigits(body: string): string {
  try {
    return rfCheckDigits(body)
  } catch {
    return '00'
  }
}

/**
 * Reads one field (rule 1): its tokens, the dates in it, and the words around each number; `hits` are the places
 * that name invoices, in the order written.
 */
export class FieldScan extends FieldHits {
  /** Free text: issued references first, then whole numbers, then number cores, each on what is left. */
  readText(tokens: TokenList, impliedInvoiceWord = false): void {
    const taken = TAKEN
    for (let at = 0; at < tokens.length; at++) taken[at] = false
    if (this.index.hasIssuedReferences) readIssued(this, tokens, taken)
    const keys = tokens.keys
    for (const match of this.index.scan(keys)) {
      if (anyTaken(taken, match.start, match.end)) continue
      for (let index = match.start; index < match.end; index++) taken[index] = true
      const start = tokens.start(match.start)
      const end = tokens.end(match.end - 1)
      // The matched tokens are the number's own: it has letters when one of them is a word.
      let digitsOnly = true
      for (let index = match.start; index < match.end && digitsOnly; index++)
        digitsOnly = tokens.isDigits(index)
      if (!digitsOnly) {
        this.hit(match.values, start, end, WORDED_NUMBER)
        continue
      }
      const level = impliedInvoiceWord ? 2 : invoiceWordLevel(this.text, tokens, match.start)
      const short = digitCount(keys, match.start, match.end) < SHORT_CORE_DIGITS
      this.hit(
        match.values,
        start,
        end,
        {
          via: 'text',
          kind: level === 2 && !short ? 'full' : 'core',
          scheme: null,
          checkDigits: null,
          invoiceWord: level > 0,
          short,
        },
        conflictsOf(this, tokens, match.start, match.end),
      )
    }
    this.readCores(tokens, taken, impliedInvoiceWord)
  }

  private readCores(tokens: TokenList, taken: boolean[], impliedWord: boolean): void {
    const keys = tokens.keys
    let from = 0
    while (from < tokens.length) {
      while (from < tokens.length && taken[from]) from++
      let to = from
      while (to < tokens.length && !taken[to]) to++
      if (to > from) {
        for (const match of this.index.scanCores(keys, from, to)) {
          for (let index = match.start; index < match.end; index++) taken[index] = true
          // The matched tokens are the core's own digit tokens.
          const digits = digitCount(keys, match.start, match.end)
          this.coreHit(tokens, match.values, match.start, match.end, impliedWord, digits)
        }
      }
      from = to
    }
    for (let at = 0; at < tokens.length; at++) {
      const start = tokens.start(at)
      const end = tokens.end(at)
      if (taken[at] || !tokens.isDigits(at) || !this.index.hasCompactCoreLength(end - start)) continue
      const found = this.index.withCompactCore(this.text.slice(start, end))
      if (found.length > 0)
        this.coreHit(
          tokens,
          found,
          at,
          at + 1,
          impliedWord,
          factsOf(found[0] as MatchInvoice).numberParts().coreDigits,
        )
    }
  }

  private coreHit(
    tokens: TokenList,
    candidates: readonly MatchInvoice[],
    from: number,
    to: number,
    impliedWord: boolean,
    /** How many digits the invoice's core has. */
    digits: number,
  ): void {
    const conflicts = conflictsOf(this, tokens, from, to)
    const prefix = otherPrefixOf(this.text, tokens, from, to)
    if (prefix) conflicts.push(prefix)
    this.hit(
      candidates,
      tokens.start(from),
      tokens.end(to - 1),
      {
        via: 'text',
        kind: 'core',
        scheme: null,
        checkDigits: null,
        invoiceWord: impliedWord || invoiceWordLevel(this.text, tokens, from) > 0,
        short: digits < SHORT_CORE_DIGITS,
      },
      conflicts,
    )
  }

  /** A structured code part: RF, OGM or a SWIFT field. */
  readCode(part: Extract<ReferencePart, { kind: 'code' }>): void {
    const start = part.tokens.start(0)
    const end = part.tokens.end(part.tokens.length - 1)
    const keys = part.tokens.keys
    if (part.via === 'swift') {
      const exact = this.index.withNumber(keys)
      if (exact.length > 0) {
        this.hit(exact, start, end, {
          via: 'swift',
          kind: 'swift',
          scheme: null,
          checkDigits: null,
          invoiceWord: true,
          short: false,
        })
      } else {
        const from = this.hits.length
        this.readText(part.tokens, true)
        for (let at = from; at < this.hits.length; at++) {
          const hit = this.hits[at] as ReferenceHit
          if (hit.via === 'text' && this.startOf(at) >= start) hit.via = 'swift'
        }
      }
      return
    }
    const scheme: ReferenceScheme = part.via === 'rf' ? 'rf' : 'be_ogm'
    if (part.valid) {
      const issued = this.index.withIssuedReference(part.compact)
      if (issued.length > 0) return issuedHit(this, issued, part.compact, start, end)
      const body = part.via === 'rf' ? part.compact.slice(4) : part.compact.slice(0, 10)
      const full = part.via === 'rf' ? this.index.withCompactNumber(body) : []
      const structured = {
        via: part.via,
        scheme,
        checkDigits: 'valid',
        invoiceWord: true,
        short: false,
      } as const
      if (full.length > 0) return this.hit(full, start, end, { ...structured, kind: 'structured' })
      const core = this.index.withCompactCore(body.replace(/^0+(?=\d)/, ''))
      const cores = core.length > 0 ? core : this.index.scanCores(keys).flatMap((match) => match.values)
      if (cores.length > 0) this.hit(cores, start, end, { ...structured, kind: 'core', short: false })
      return
    }
    // Check digits that do not add up: a typo. Point at the invoice it was probably meant for, never more.
    const meant =
      part.via === 'rf'
        ? this.index.withIssuedReference(
            `RF${safeRfCheckDigits(part.compact.slice(4))}${part.compact.slice(4)}`,
          )
        : (typoOf(this, part.compact)?.invoices ?? [])
    const byNumber = part.via === 'rf' && meant.length === 0 ? this.index.withNumber(keys) : []
    const invoices = meant.length > 0 ? meant : byNumber
    if (invoices.length > 0) {
      this.hit(invoices, start, end, {
        via: meant.length > 0 ? 'issued' : part.via,
        kind: meant.length > 0 ? 'issued' : 'structured',
        scheme,
        checkDigits: 'invalid',
        invoiceWord: false,
        short: false,
      })
    }
  }
}

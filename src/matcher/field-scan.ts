import { validSchemes, type ReferenceScheme } from './check-digits.js'
import { dateSpans, overlaps, type Span } from './date-spans.js'
import type { InvoiceIndex } from './invoice-index.js'
import { factsOf } from './invoice-facts.js'
import { compactIssuedReference, compactReference, kidDashAt } from './invoice-number.js'
import { referenceTypos } from './match-keys.js'
import type { ReferencePart } from './normalize-reference.js'
import { gluedLabel, labelBefore, listStart, readsAsAmount, wordBefore, x12Segment } from './number-labels.js'
import {
  INVOICE_WORDS,
  LABEL_NAMES,
  NUMBER_WORDS,
  OTHER_LABELS,
  STRUCTURED_LABELS,
  WEAK_INVOICE_WORDS,
} from './reference-words.js'
import { rfCheckDigits } from './rf-reference.js'
import type { Token } from './tokenize.js'
import type { MatchInvoice } from './types.js'
import type { ReferenceHit, ReferenceSource, TextConflict } from './reference-hit.js'

const SHORT_CORE_DIGITS = 4

function idOf(invoice: MatchInvoice): string {
  return invoice.id
}

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

function isAsciiLetters(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at) | 32
    if (code < 97 || code > 122) return false
  }
  return true
}

function isDigitToken(token: Token): boolean {
  const code = token.text.charCodeAt(0)
  return code >= 48 && code <= 57
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

/**
 * Reads one field (rule 1): its tokens, the dates in it, and the words around each number; `hits` are the places
 * that name invoices, in the order written.
 */
export class FieldScan {
  private dates: Span[] | null = null
  readonly hits: ReferenceHit[] = []
  /** Where each hit starts in the text, beside `hits` (the hits themselves are what callers keep). */
  readonly starts: number[] = []

  constructor(
    private readonly index: InvoiceIndex,
    private readonly text: string,
    private readonly source: ReferenceSource,
  ) {}

  private datesOf(): Span[] {
    return (this.dates ??= dateSpans(this.text))
  }

  private hit(
    candidates: readonly MatchInvoice[],
    start: number,
    end: number,
    fields: Pick<ReferenceHit, 'via' | 'kind' | 'scheme' | 'checkDigits' | 'invoiceWord' | 'short'>,
    conflicts: TextConflict[] = [],
  ): void {
    const meant = narrow(candidates, this.source, this.text.slice(start, end))
    const invoiceIds = meant.length === 1 ? [(meant[0] as MatchInvoice).id] : meant.map(idOf).sort()
    this.hits.push({
      via: fields.via,
      kind: fields.kind,
      scheme: fields.scheme,
      checkDigits: fields.checkDigits,
      invoiceWord: fields.invoiceWord,
      short: fields.short,
      invoiceIds,
      reference: this.text.slice(start, end),
      conflicts,
    })
    this.starts.push(start)
  }

  /** The hits in the order written (codes and text parts are read in order, a SWIFT value's text after it). */
  sortByStart(): void {
    const { hits, starts } = this
    let sorted = true
    for (let at = 1; at < starts.length && sorted; at++)
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

  /**
   * How strongly the words before token `at` say “invoice”: 2 for a word for invoice (`Rechnung`, `Invoice No.`),
   * 1 for a number word or sign alone (`No.`, `#`, `n°`) or a word that is also something else (`RE`, `FRA`), 0
   * for none. Only 2 makes a number of digits only a whole invoice number.
   */
  private invoiceWordLevel(tokens: readonly Token[], at: number): 0 | 1 | 2 {
    const word = wordBefore(tokens, at)
    if (word !== null && INVOICE_WORDS.has(word)) return WEAK_INVOICE_WORDS.has(word) ? 1 : 2
    // `#1001`, `n° 1001`, `No. 1001`: a number sign or word right before the number.
    const before = this.text.slice(Math.max(0, (tokens[at] as Token).start - 3), (tokens[at] as Token).start)
    return /#\s*$|n[°º]\s*$/i.test(before) || (at > 0 && NUMBER_WORDS.has((tokens[at - 1] as Token).text))
      ? 1
      : 0
  }

  private hasInvoiceWord(tokens: readonly Token[], at: number): boolean {
    return this.invoiceWordLevel(tokens, at) > 0
  }

  /** What else a run of digits may be: a date, a labelled customer/order/trace number, a customer id. */
  private conflictsOf(tokens: readonly Token[], from: number, to: number): TextConflict[] {
    const start = (tokens[from] as Token).start
    const end = (tokens[to - 1] as Token).end
    const written = this.text.slice(start, end)
    const conflicts: TextConflict[] = []
    if (overlaps(this.datesOf(), start, end)) {
      conflicts.push({ code: 'reads_as_date', text: `“${written}” is part of a date in the text` })
    }
    if (readsAsAmount(this.text, end)) {
      conflicts.push({
        code: 'reads_as_amount',
        text: `“${written}” is the whole part of an amount in the text`,
      })
    }
    const segment = x12Segment(this.text, start)
    if (segment) {
      conflicts.push({
        code: 'labelled',
        text: `“${written}” stands in the X12 ${segment} segment: no invoice is named there`,
      })
    }
    const word = wordBefore(tokens, listStart(this.text, tokens, from))
    const label = word === null ? undefined : OTHER_LABELS.get(word)
    const glued = label ? null : gluedLabel(this.text, start)
    if (label || glued) {
      conflicts.push({
        code: 'labelled',
        text: label
          ? `“${written}” follows “${word}”: it reads as ${LABEL_NAMES[label]}`
          : `“${written}” is part of a code after “${glued?.word}”: it reads as ${glued?.name}`,
      })
    }
    const compact = compactReference(written)
    if (this.index.customers.hasCustomerId(compact) || this.index.customers.hasCustomerId(written)) {
      conflicts.push({ code: 'customer_number', text: `“${written}” is the id of a customer` })
    }
    const bank = this.source.bankReference ? compactReference(this.source.bankReference) : ''
    if (bank && compact.length >= 4 && bank.includes(compact)) {
      conflicts.push({
        code: 'bank_reference',
        text: `“${written}” is part of the bank’s own reference ${this.source.bankReference}`,
      })
    }
    return conflicts
  }

  /** Free text: issued references first, then whole numbers, then number cores, each on what is left. */
  readText(tokens: readonly Token[], impliedInvoiceWord = false): void {
    const taken = new Array<boolean>(tokens.length).fill(false)
    if (this.index.hasIssuedReferences) this.readIssued(tokens, taken)
    const keys = tokens.map((token) => token.text)
    for (const match of this.index.scan(keys)) {
      if (anyTaken(taken, match.start, match.end)) continue
      for (let index = match.start; index < match.end; index++) taken[index] = true
      const first = tokens[match.start] as Token
      const last = tokens[match.end - 1] as Token
      // The matched tokens are the number's own: it has letters when one of them is a word.
      let digitsOnly = true
      for (let index = match.start; index < match.end && digitsOnly; index++)
        digitsOnly = isDigitToken(tokens[index] as Token)
      if (!digitsOnly) {
        this.hit(match.values, first.start, last.end, {
          via: 'text',
          kind: 'full',
          scheme: null,
          checkDigits: null,
          invoiceWord: true,
          short: false,
        })
        continue
      }
      const level = impliedInvoiceWord ? 2 : this.invoiceWordLevel(tokens, match.start)
      const word = level > 0
      const short = digitCount(keys, match.start, match.end) < SHORT_CORE_DIGITS
      this.hit(
        match.values,
        first.start,
        last.end,
        {
          via: 'text',
          kind: level === 2 && !short ? 'full' : 'core',
          scheme: null,
          checkDigits: null,
          invoiceWord: word,
          short,
        },
        this.conflictsOf(tokens, match.start, match.end),
      )
    }
    this.readCores(tokens, keys, taken, impliedInvoiceWord)
  }

  private readCores(
    tokens: readonly Token[],
    keys: readonly string[],
    taken: boolean[],
    impliedWord: boolean,
  ): void {
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
      const token = tokens[at] as Token
      if (taken[at] || !isDigitToken(token) || !this.index.hasCompactCoreLength(token.end - token.start))
        continue
      const found = this.index.withCompactCore(this.text.slice(token.start, token.end))
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
    tokens: readonly Token[],
    candidates: readonly MatchInvoice[],
    from: number,
    to: number,
    impliedWord: boolean,
    /** How many digits the invoice's core has. */
    digits: number,
  ): void {
    const conflicts = this.conflictsOf(tokens, from, to)
    const before = tokens[from - 1]
    const first = tokens[from] as Token
    // `XINV-1001`, `CN-1001`: another prefix written onto the digits is another document's number.
    if (
      before &&
      !isDigitToken(before) &&
      !INVOICE_WORDS.has(before.text) &&
      !NUMBER_WORDS.has(before.text) &&
      !OTHER_LABELS.has(before.text) &&
      /^[-/.]?$/.test(this.text.slice(before.end, first.start))
    ) {
      const written = this.text.slice(before.start, (tokens[to - 1] as Token).end)
      conflicts.push({
        code: 'other_prefix',
        text: `“${written}” carries another prefix than the invoice’s number`,
      })
    }
    this.hit(
      candidates,
      (tokens[from] as Token).start,
      (tokens[to - 1] as Token).end,
      {
        via: 'text',
        kind: 'core',
        scheme: null,
        checkDigits: null,
        invoiceWord: impliedWord || this.hasInvoiceWord(tokens, from),
        short: digits < SHORT_CORE_DIGITS,
      },
      conflicts,
    )
  }

  /**
   * A payment reference issued on an invoice, written as one token or as digit groups (`12 34561`,
   * `21 00000 00003 13947 14300 09017`). A labelled national reference whose check digit fails is looked up as a
   * typo of an issued one.
   */
  private readIssued(tokens: readonly Token[], taken: boolean[]): void {
    for (let from = 0; from < tokens.length; from++) {
      if (taken[from]) continue
      let to = from + 1
      const digits = isDigitToken(tokens[from] as Token)
      if (digits) {
        while (to < tokens.length && isDigitToken(tokens[to] as Token) && this.spaceOrNothing(tokens, to))
          to++
      }
      // The longest run of groups that is an issued reference, down to one token. Lengths no invoice's reference
      // has are skipped without building the string: most tokens are never looked up. A run of digit groups is
      // all digits, as are its typos: only a reference of digits that long can be it.
      let length = 0
      for (let index = from; index < to; index++)
        length += (tokens[index] as Token).end - (tokens[index] as Token).start
      for (let end = to; end > from; end--) {
        const start = (tokens[from] as Token).start
        const stop = (tokens[end - 1] as Token).end
        // A KID's mod-11 check digit `-` right after its digits is part of it.
        const dash = isDigitToken(tokens[end - 1] as Token) && kidDashAt(this.text, stop)
        // A word of ASCII letters is its own compact form (upper-cased): only a reference of letters that long can
        // be it. Most words are not looked up in the map of every issued reference.
        const known = digits
          ? this.index.hasIssuedDigitsLength(length)
          : isAsciiLetters(this.text, (tokens[from] as Token).start, (tokens[from] as Token).end)
            ? this.index.hasIssuedLettersLength(length)
            : this.index.hasIssuedLength(length)
        if (known || (dash && this.index.hasIssuedLength(length + 1))) {
          // One run of digits is its own compact form.
          const compact =
            end === from + 1 && isDigitToken(tokens[from] as Token)
              ? this.text.slice(start, stop)
              : compactReference(this.text.slice(start, stop))
          const withDash = dash ? this.index.withIssuedReference(`${compact}-`) : []
          const found = withDash.length > 0 ? withDash : this.index.withIssuedReference(compact)
          if (found.length > 0) {
            for (let index = from; index < end; index++) taken[index] = true
            if (withDash.length > 0) this.issuedHit(found, `${compact}-`, start, stop + 1)
            else this.issuedHit(found, compact, start, stop)
            from = end - 1
            break
          }
          const written = dash ? `${compact}-` : compact
          const typo = end === to && this.labelledStructured(tokens, from) ? this.typoOf(written) : null
          if (typo) {
            for (let index = from; index < end; index++) taken[index] = true
            this.hit(typo.invoices, start, dash ? stop + 1 : stop, {
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
        length -= (tokens[end - 1] as Token).end - (tokens[end - 1] as Token).start
      }
    }
  }

  /** Whether at most one space stands between token `at` and the one before it. */
  private spaceOrNothing(tokens: readonly Token[], at: number): boolean {
    const gapStart = (tokens[at - 1] as Token).end
    const gap = (tokens[at] as Token).start - gapStart
    return gap === 0 || (gap === 1 && this.text.charCodeAt(gapStart) === 32)
  }

  private labelledStructured(tokens: readonly Token[], at: number): boolean {
    const word = wordBefore(tokens, at)
    return word !== null && STRUCTURED_LABELS.has(word)
  }

  private issuedHit(found: readonly MatchInvoice[], compact: string, start: number, end: number): void {
    const schemes = validSchemes(compact)
    // An issued reference under another label (`PO RF35A1001`, `Kunden-Nr. 4000900110`) is that label's number.
    const label = labelBefore(this.text, start)
    const conflicts: TextConflict[] = label
      ? [
          {
            code: 'labelled',
            text: `“${this.text.slice(start, end)}” follows “${label.word}”: it reads as ${label.name}`,
          },
        ]
      : []
    this.hit(
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
  typoOf(compact: string): { invoices: readonly MatchInvoice[]; scheme: ReferenceScheme | null } | null {
    if (!/^\d{4,27}-?$/.test(compact) || validSchemes(compact).length > 0) return null
    // A KID's `-` may be dropped or added: its typos are one character longer or shorter.
    const lengths = [compact.length - 1, compact.length, compact.length + 1]
    if (!lengths.some((length) => this.index.hasIssuedLength(length))) return null
    const found = new Map<string, MatchInvoice>()
    for (const variant of referenceTypos(compact)) {
      for (const invoice of this.index.withIssuedReference(variant)) found.set(invoice.id, invoice)
    }
    if (found.size === 0) return null
    const invoices = [...found.values()]
    const scheme = validSchemes(compactIssuedReference(invoices[0]?.paymentReference ?? ''))[0] ?? null
    return { invoices, scheme }
  }

  /** A structured code part: RF, OGM or a SWIFT field. */
  readCode(part: Extract<ReferencePart, { kind: 'code' }>): void {
    const start = (part.tokens[0] as Token).start
    const end = (part.tokens[part.tokens.length - 1] as Token).end
    const keys = part.tokens.map((token) => token.text)
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
          if (hit.via === 'text' && (this.starts[at] as number) >= start) hit.via = 'swift'
        }
      }
      return
    }
    const scheme: ReferenceScheme = part.via === 'rf' ? 'rf' : 'be_ogm'
    if (part.valid) {
      const issued = this.index.withIssuedReference(part.compact)
      if (issued.length > 0) return this.issuedHit(issued, part.compact, start, end)
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
        : (this.typoOf(part.compact)?.invoices ?? [])
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

function safeRfCheckDigits(body: string): string {
  try {
    return rfCheckDigits(body)
  } catch {
    return '00'
  }
}

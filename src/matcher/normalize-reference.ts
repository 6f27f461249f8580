import { isValidOgm } from './check-digits.js'
import { isValidRfReference } from './rf-reference.js'
import { TokenList, tokenize } from './tokenize.js'
import type { ReferenceVia } from './types.js'

/**
 * A reference text split in the order written: free text, where any run of whole tokens may name an invoice, and
 * structured codes whose value is an invoice number (a valid RF reference names only the invoice whose number
 * equals its body; a SWIFT /INV/ or /RFB/ value is first compared whole, then read as free text).
 */
export type ReferencePart =
  | { kind: 'text'; tokens: TokenList }
  | {
      kind: 'code'
      via: Exclude<ReferenceVia, 'text' | 'issued'>
      tokens: TokenList
      exactOnly: boolean
      /** false: check digits that do not add up (a typo); the part names nothing by itself. */
      valid: boolean
      /** The structured reference letter by letter (`RF18539007547034`, the OGM's 12 digits); '' for SWIFT. */
      compact: string
    }

const CODE_START = /\/(?:INV|RFB)\/|RF\d\d|[+*]{3} ?\d{3} ?\//gi
const OGM = /^([+*]{3}) ?(\d{3}) ?\/ ?(\d{4}) ?\/ ?(\d{5}) ?\1/
const RF_GROUP = 4

/** An ASCII letter or digit, by character code. */
export function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
}

function alphanumericEnd(text: string, from: number): number {
  let index = from
  while (index < text.length && isAlphanumeric(text.charCodeAt(index))) index++
  return index
}

type Parsed = { end: number; part: ReferencePart | null }

/**
 * ISO 11649 at `start` (`RF` and two digits): electronic form `RF18539007547034`, or printed in groups of four
 * (`RF18 5390 0754 7034`), where the longest run of groups with valid check digits is the body, so text after the
 * reference is still read. With invalid check digits every group is consumed and the part is marked invalid: it
 * names nothing by itself, and may only point at the invoice it was probably meant for (a typo).
 */
function parseRf(text: string, start: number): Parsed {
  const checkDigits = text.slice(start + 2, start + 4)
  const afterCheck = start + 4
  if (afterCheck < text.length && isAlphanumeric(text.charCodeAt(afterCheck))) {
    const end = alphanumericEnd(text, afterCheck)
    const body = text.slice(afterCheck, end).toUpperCase()
    return { end, part: rfPart(text, start, afterCheck, end, isValidRfReference(checkDigits, body)) }
  }
  let body = ''
  let end = afterCheck
  let validEnd = -1
  let cursor = afterCheck
  while (text[cursor] === ' ') {
    const groupEnd = alphanumericEnd(text, cursor + 1)
    const length = groupEnd - cursor - 1
    if (length === 0 || length > RF_GROUP) break
    body += text.slice(cursor + 1, groupEnd).toUpperCase()
    end = groupEnd
    if (isValidRfReference(checkDigits, body)) validEnd = groupEnd
    if (length < RF_GROUP) break
    cursor = groupEnd
  }
  if (validEnd < 0)
    return { end, part: end > afterCheck ? rfPart(text, start, afterCheck, end, false) : null }
  return { end: validEnd, part: rfPart(text, start, afterCheck, validEnd, true) }
}

function rfPart(text: string, start: number, bodyStart: number, end: number, valid: boolean): ReferencePart {
  // The body is one identifier, whatever its printed grouping: compare it as letters and digits only.
  const body = text.slice(bodyStart, end).replace(/ /g, '')
  const tokens = TokenList.spanning(tokenize(body).keys, start, end)
  const compact = `RF${text.slice(start + 2, start + 4)}${body}`.toUpperCase()
  return { kind: 'code', via: 'rf', tokens, exactOnly: true, valid, compact }
}

/** Belgian structured communication `+++123/4567/89002+++` (or with `***`) at `start`; mod 97 decides validity. */
function parseOgm(text: string, start: number): Parsed {
  const found = OGM.exec(text.slice(start, start + 30))
  if (!found) return { end: start + 3, part: null }
  const digits = `${found[2]}${found[3]}${found[4]}`
  const end = start + found[0].length
  const tokens = TokenList.spanning([digits.replace(/^0+(?=\d)/, '')], start, end)
  return {
    end,
    part: {
      kind: 'code',
      via: 'ogm',
      tokens,
      exactOnly: true,
      valid: isValidOgm(digits),
      compact: digits,
    },
  }
}

/** SWIFT `/INV/number[/date]` or `/RFB/reference` at `start`: the value runs to the next slash or line end. */
function parseSwift(text: string, start: number): Parsed {
  const code = text.slice(start + 1, start + 4).toUpperCase()
  const valueStart = start + 5
  let valueEnd = valueStart
  while (valueEnd < text.length && text[valueEnd] !== '/' && text[valueEnd] !== '\n') valueEnd++
  let end = valueEnd
  if (code === 'INV' && text[valueEnd] === '/') {
    const dateEnd = alphanumericEnd(text, valueEnd + 1)
    if (/^\d{6}(\d\d)?$/.test(text.slice(valueEnd + 1, dateEnd))) end = dateEnd
  }
  const value = text.slice(valueStart, valueEnd)
  const rf = /^\s*RF\d\d/i.exec(value)
  if (code === 'RFB' && rf) {
    const parsed = parseRf(text, valueStart + rf[0].length - 4)
    return { end: Math.max(end, parsed.end), part: parsed.part }
  }
  const tokens = tokenize(text, valueStart, valueEnd)
  return {
    end,
    part:
      tokens.length > 0
        ? { kind: 'code', via: 'swift', tokens, exactOnly: false, valid: true, compact: '' }
        : null,
  }
}

function textPart(text: string, start: number, end: number): ReferencePart | null {
  if (end <= start) return null
  const tokens = tokenize(text, start, end)
  return tokens.length > 0 ? { kind: 'text', tokens } : null
}

/** Splits a reference text into free text and structured codes, in the order written. */
export function normalizeReference(text: string): ReferencePart[] {
  // Most texts hold no code: their one part's list is made at its size, the list of several only when needed.
  let parts: ReferencePart[] | null = null
  let textStart = 0
  CODE_START.lastIndex = 0
  for (let found = CODE_START.exec(text); found; found = CODE_START.exec(text)) {
    const start = found.index
    const first = found[0][0]
    const isRf = first === 'R' || first === 'r'
    if (isRf && start > 0 && isAlphanumeric(text.charCodeAt(start - 1))) {
      CODE_START.lastIndex = start + 1
      continue
    }
    const parsed = isRf
      ? parseRf(text, start)
      : first === '/'
        ? parseSwift(text, start)
        : parseOgm(text, start)
    if (!parsed.part && first !== '/' && !isRf) {
      CODE_START.lastIndex = start + 1
      continue
    }
    const before = textPart(text, textStart, start)
    if (before) (parts ??= []).push(before)
    if (parsed.part) (parts ??= []).push(parsed.part)
    textStart = parsed.end
    CODE_START.lastIndex = parsed.end
  }
  const rest = textPart(text, textStart, text.length)
  if (parts === null) return rest ? [rest] : []
  if (rest) parts.push(rest)
  return parts
}

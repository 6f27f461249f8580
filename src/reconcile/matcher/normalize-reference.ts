import { isValidRfReference } from './rf-reference.js'
import { tokenize, type Token } from './tokenize.js'
import type { ReferenceVia } from './types.js'

/**
 * A reference text split in the order written: free text, where any run of whole tokens may name an invoice, and
 * structured codes whose value is an invoice number (a valid RF reference names only the invoice whose number
 * equals its body; a SWIFT /INV/ or /RFB/ value is first compared whole, then read as free text).
 */
export type ReferencePart =
  | { kind: 'text'; tokens: Token[] }
  | { kind: 'code'; via: Exclude<ReferenceVia, 'text'>; tokens: Token[]; exactOnly: boolean }

const CODE_START = /\/(?:INV|RFB)\/|RF\d\d/gi
const RF_GROUP = 4

function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
}

function alphanumericEnd(text: string, from: number): number {
  let index = from
  while (index < text.length && isAlphanumeric(text.charCodeAt(index))) index++
  return index
}

function tokenizeRange(text: string, start: number, end: number): Token[] {
  if (start === 0 && end === text.length) return tokenize(text)
  return tokenize(text.slice(start, end)).map((token) => ({
    text: token.text,
    start: token.start + start,
    end: token.end + start,
  }))
}

type Parsed = { end: number; part: ReferencePart | null }

/**
 * ISO 11649 at `start` (`RF` and two digits): electronic form `RF18539007547034`, or printed in groups of four
 * (`RF18 5390 0754 7034`), where the longest run of groups with valid check digits is the body, so text after the
 * reference is still read. Invalid check digits name nothing: the groups are consumed and nothing is returned.
 */
function parseRf(text: string, start: number): Parsed {
  const checkDigits = text.slice(start + 2, start + 4)
  const afterCheck = start + 4
  if (afterCheck < text.length && isAlphanumeric(text.charCodeAt(afterCheck))) {
    const end = alphanumericEnd(text, afterCheck)
    const body = text.slice(afterCheck, end).toUpperCase()
    if (!isValidRfReference(checkDigits, body)) return { end, part: null }
    return { end, part: rfPart(text, start, afterCheck, end) }
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
  if (validEnd < 0) return { end, part: null }
  return { end: validEnd, part: rfPart(text, start, afterCheck, validEnd) }
}

function rfPart(text: string, start: number, bodyStart: number, end: number): ReferencePart {
  // The body is one identifier, whatever its printed grouping: compare it as letters and digits only.
  const tokens = tokenize(text.slice(bodyStart, end).replace(/ /g, '')).map((token) => ({
    text: token.text,
    start,
    end,
  }))
  return { kind: 'code', via: 'rf', tokens, exactOnly: true }
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
  const tokens = tokenizeRange(text, valueStart, valueEnd)
  return { end, part: tokens.length > 0 ? { kind: 'code', via: 'swift', tokens, exactOnly: false } : null }
}

function pushText(parts: ReferencePart[], text: string, start: number, end: number): void {
  if (end <= start) return
  const tokens = tokenizeRange(text, start, end)
  if (tokens.length > 0) parts.push({ kind: 'text', tokens })
}

/** Splits a reference text into free text and structured codes, in the order written. */
export function normalizeReference(text: string): ReferencePart[] {
  const parts: ReferencePart[] = []
  let textStart = 0
  CODE_START.lastIndex = 0
  for (let found = CODE_START.exec(text); found; found = CODE_START.exec(text)) {
    const start = found.index
    const isRf = found[0][0] !== '/'
    if (isRf && start > 0 && isAlphanumeric(text.charCodeAt(start - 1))) {
      CODE_START.lastIndex = start + 1
      continue
    }
    const parsed = isRf ? parseRf(text, start) : parseSwift(text, start)
    pushText(parts, text, textStart, start)
    if (parsed.part) parts.push(parsed.part)
    textStart = parsed.end
    CODE_START.lastIndex = parsed.end
  }
  pushText(parts, text, textStart, text.length)
  return parts
}

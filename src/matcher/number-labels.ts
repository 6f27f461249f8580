import { LABEL_NAMES, LIST_WORDS, NUMBER_WORDS, OTHER_LABELS, type NumberLabel } from './reference-words.js'
import { isAlphanumeric } from './normalize-reference.js'
import { tokenize, type TokenList } from './tokenize.js'

/** What stands between the numbers of a list (`4711, 4712`, `4711/4712`, `2024-0315 + 2024-0316`). */
const LIST_GAP = /^[\s,;/&+.-]*$/

/**
 * The word before token `at`, past a word for “number” and past a one- or two-digit code (`TRN*1*<trace>` in
 * ACH addenda); null when a longer number stands right before it.
 */
export function wordBefore(tokens: TokenList, at: number): string | null {
  for (let index = at - 1, steps = 0; index >= 0 && steps < 2; index--, steps++) {
    if (tokens.isDigits(index)) {
      if (tokens.end(index) - tokens.start(index) > 2) return null
      continue
    }
    const word = tokens.key(index)
    if (!NUMBER_WORDS.has(word)) return word
  }
  return null
}

/**
 * The first number of the list digit token `at` belongs to: a label before a list covers every number of it
 * (`PO 4711, 4712 und 4713`: 4712 and 4713 are order numbers too). The list runs back over numbers separated by
 * punctuation, spaces or a word for “and”.
 */
export function listStart(text: string, tokens: TokenList, at: number): number {
  let first = at
  while (first > 0) {
    if (tokens.isDigits(first - 1)) {
      if (!LIST_GAP.test(text.slice(tokens.end(first - 1), tokens.start(first)))) break
      first--
      continue
    }
    if (LIST_WORDS.has(tokens.key(first - 1)) && first > 1 && tokens.isDigits(first - 2)) {
      first -= 2
      continue
    }
    break
  }
  return first
}

/** The label (customer, order, trace, mandate, date) a reference starting at `offset` in `text` stands under. */
export function labelBefore(
  text: string,
  offset: number,
): { word: string; label: NumberLabel; name: string } | null {
  const tokens = tokenize(text, Math.max(0, offset - 64), offset)
  const at = tokens.length
  // The reference itself is not among the tokens: walk the list back from the last number before it, if any.
  const start =
    at > 0 && tokens.isDigits(at - 1) && LIST_GAP.test(text.slice(tokens.end(at - 1), offset))
      ? listStart(text, tokens, at - 1)
      : at
  const word = wordBefore(tokens, start)
  const label = word === null ? undefined : OTHER_LABELS.get(word)
  return word !== null && label ? { word, label, name: LABEL_NAMES[label] } : null
}

/**
 * The label of a longer code the number at `start` is the glued tail of (`IMAD: 0320MMQFMP2N004308`): the digits
 * are part of that code, not a reference of their own.
 */
export function gluedLabel(
  text: string,
  start: number,
): { word: string; label: NumberLabel; name: string } | null {
  let run = start
  while (run > 0 && isAlphanumeric(text.charCodeAt(run - 1))) run--
  return run < start ? labelBefore(text, run) : null
}

/** A number written as the whole part of an amount (`4679.17`, `RMR*IV*…*PI*4679.17`): the amount, no reference. */
export function readsAsAmount(text: string, end: number): boolean {
  const next = text.charCodeAt(end)
  if (next !== 46 && next !== 44) return false
  return /^[.,]\d\d(?![\d.,])/.test(text.slice(end, end + 4))
}

/** X12 820 segments that carry no document number: trace, bank, party, date and control segments. */
const X12_OTHER_SEGMENTS: ReadonlySet<string> = new Set(
  'ISA GS ST SE GE IEA BPR TRN CUR DTM N1 N2 N3 N4 PER NM1 ENT ADX'.split(' '),
)

/** The X12 segment (`TRN`, `BPR`, …) holding the number at `start`, when it is one that names no document. */
export function x12Segment(text: string, start: number): string | null {
  // A segment's id ends at a `*`: a text without one has no segment (most texts; one search, no regex).
  if (!text.includes('*')) return null
  const open = Math.max(text.lastIndexOf('~', start - 1), text.lastIndexOf('\\', start - 1)) + 1
  const id = /^\s*([A-Z][A-Z0-9]{1,2})\*/.exec(text.slice(open, open + 8))?.[1]
  return id !== undefined && X12_OTHER_SEGMENTS.has(id) ? id : null
}

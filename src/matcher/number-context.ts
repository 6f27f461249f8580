import { overlaps } from './date-spans.js'
import type { FieldHits } from './field-hits.js'
import { compactReference } from './invoice-number.js'
import { gluedLabel, listStart, readsAsAmount, wordBefore, x12Segment } from './number-labels.js'
import {
  INVOICE_WORDS,
  LABEL_NAMES,
  NUMBER_WORDS,
  OTHER_LABELS,
  WEAK_INVOICE_WORDS,
} from './reference-words.js'
import type { TextConflict } from './reference-hit.js'
import type { TokenList } from './tokenize.js'

/** `#1001`, `n° 1001`: a number sign right before the number (at most three characters before it). */
const NUMBER_SIGN = /#\s*$|n[°º]\s*$/i

/** What stands between another prefix and the digits of `XINV-1001`: nothing or one separator. */
const PREFIX_GAP = /^[-/.]?$/

/**
 * How strongly the words before token `at` say “invoice”: 2 for a word for invoice (`Rechnung`, `Invoice No.`),
 * 1 for a number word or sign alone (`No.`, `#`, `n°`) or a word that is also something else (`RE`, `FRA`), 0
 * for none. Only 2 makes a number of digits only a whole invoice number.
 */
export function invoiceWordLevel(text: string, tokens: TokenList, at: number): 0 | 1 | 2 {
  const word = wordBefore(tokens, at)
  if (word !== null && INVOICE_WORDS.has(word)) return WEAK_INVOICE_WORDS.has(word) ? 1 : 2
  const start = tokens.start(at)
  return NUMBER_SIGN.test(text.slice(Math.max(0, start - 3), start)) ||
    (at > 0 && NUMBER_WORDS.has(tokens.key(at - 1)))
    ? 1
    : 0
}

/** What else a run of digits tokens[from, to) may be: a date, a labelled customer/order/trace number, a customer id. */
export function conflictsOf(scan: FieldHits, tokens: TokenList, from: number, to: number): TextConflict[] {
  const { text, source, index } = scan
  const start = tokens.start(from)
  const end = tokens.end(to - 1)
  const written = text.slice(start, end)
  const conflicts: TextConflict[] = []
  if (overlaps(scan.datesOf(), start, end)) {
    conflicts.push({ code: 'reads_as_date', text: `“${written}” is part of a date in the text` })
  }
  if (readsAsAmount(text, end)) {
    conflicts.push({
      code: 'reads_as_amount',
      text: `“${written}” is the whole part of an amount in the text`,
    })
  }
  const segment = x12Segment(text, start)
  if (segment) {
    conflicts.push({
      code: 'labelled',
      text: `“${written}” stands in the X12 ${segment} segment: no invoice is named there`,
    })
  }
  const word = wordBefore(tokens, listStart(text, tokens, from))
  const label = word === null ? undefined : OTHER_LABELS.get(word)
  const glued = label ? null : gluedLabel(text, start)
  if (label || glued) {
    conflicts.push({
      code: 'labelled',
      text: label
        ? `“${written}” follows “${word}”: it reads as ${LABEL_NAMES[label]}`
        : `“${written}” is part of a code after “${glued?.word}”: it reads as ${glued?.name}`,
    })
  }
  // One digit token is its own compact form; the written form is looked up again only when it differs.
  const compact = to - from === 1 ? written : compactReference(written)
  if (
    index.customers.hasCustomerId(compact) ||
    (compact !== written && index.customers.hasCustomerId(written))
  ) {
    conflicts.push({ code: 'customer_number', text: `“${written}” is the id of a customer` })
  }
  const bank = source.bankReference ? compactReference(source.bankReference) : ''
  if (bank && compact.length >= 4 && bank.includes(compact)) {
    conflicts.push({
      code: 'bank_reference',
      text: `“${written}” is part of the bank’s own reference ${source.bankReference}`,
    })
  }
  return conflicts
}

/**
 * `XINV-1001`, `CN-1001`: another prefix written onto the digits tokens[from, to) is another document's number,
 * or null when none is.
 */
export function otherPrefixOf(
  text: string,
  tokens: TokenList,
  from: number,
  to: number,
): TextConflict | null {
  if (from === 0) return null
  const before = tokens.key(from - 1)
  if (
    !tokens.isDigits(from - 1) &&
    !INVOICE_WORDS.has(before) &&
    !NUMBER_WORDS.has(before) &&
    !OTHER_LABELS.has(before) &&
    PREFIX_GAP.test(text.slice(tokens.end(from - 1), tokens.start(from)))
  ) {
    const written = text.slice(tokens.start(from - 1), tokens.end(to - 1))
    return { code: 'other_prefix', text: `“${written}” carries another prefix than the invoice’s number` }
  }
  return null
}

import type { InvoiceIndex } from './invoice-index.js'
import { INVOICE_WORDS, NUMBER_WORDS, WEAK_INVOICE_WORDS } from './reference-words.js'
import { tokenize } from './tokenize.js'
import { referenceTexts, type Evidence, type MatchTransaction } from './types.js'
import { unwrapRemittance } from './unwrap-remittance.js'

/**
 * Money for something that is not an invoice yet: an advance or down payment, in the usual languages. `deposit`
 * only when no bank word before it makes it a deposit of cheques or cash (`LOCKBOX DEPOSIT`, `MOBILE DEPOSIT`).
 * `Abschlagsrechnung` (an invoice for a part payment) is an invoice and not matched: the words are whole.
 */
const ADVANCE =
  /\b(anzahlung|vorauszahlung|vorkasse|abschlagszahlung|abschlag|akonto|a[ -]?conto|acompte|avance|anticipo|acconto|caparra|advance payment|advance|pre-?payment|down ?payment|(?<!(?:lockbox|mobile|branch|cash|atm|remote|direct|night|bank|cheque|check) )deposit|voorschot|aanbetaling|ennakkomaksu|ennakko|forskudd|forskud|forskott|forskottsbetalning)\b/

const BEYOND_ASCII = /[^\x20-\x7e]/
const MARKS = /\p{M}+/gu
const DIGIT = /\d/
const NON_DIGITS = /\D+/g

function plain(text: string): string {
  const lower = text.toLowerCase()
  return BEYOND_ASCII.test(lower) ? lower.normalize('NFKD').replace(MARKS, '') : lower
}

/** Whether the gap text[from, to) between two digit groups is nothing or one `-`, `/`, `.` or space. */
function joinsGroups(text: string, from: number, to: number): boolean {
  if (to === from) return true
  if (to - from !== 1) return false
  const code = text.charCodeAt(from)
  return code === 45 || code === 47 || code === 46 || code === 32
}

/** The advance or down-payment wording of the payment's text, if any. */
export function advanceWording(transaction: MatchTransaction): Evidence | null {
  for (const text of referenceTexts(transaction)) {
    const word = text ? ADVANCE.exec(plain(text))?.[1] : undefined
    if (word) {
      return {
        code: 'advance_payment',
        points: 0,
        text: `the text says “${word}”: money paid in advance is for an invoice not issued yet, never another one`,
        conflict: 'unexplained',
      }
    }
  }
  return null
}

/** Whether the tokens `keys` (a word and its digits) name a known invoice, by its number or its core. */
function namesKnownInvoice(index: InvoiceIndex, keys: readonly string[], written: string): boolean {
  if (index.scan(keys).some((match) => match.end > 1)) return true
  if (index.scanCores(keys, 1).length > 0) return true
  return keys.length > 2 && index.withCompactCore(written.replace(NON_DIGITS, '')).length > 0
}

/**
 * Numbers written the way invoice numbers are (after a word for invoice, or after a word the books' numbers start
 * with, `INV-2024-0199`) that name no known invoice: a payment quoting one is for an invoice not in the books yet.
 */
export function unknownInvoiceNumbers(index: InvoiceIndex, transaction: MatchTransaction): string[] {
  const found: string[] = []
  for (const written of referenceTexts(transaction)) {
    if (!written || !DIGIT.test(written)) continue
    const text = unwrapRemittance(written)
    const tokens = tokenize(text)
    for (let at = 0; at < tokens.length; at++) {
      const word = tokens.key(at)
      if (word.charCodeAt(0) <= 57) continue
      const invoiceWord = INVOICE_WORDS.has(word) && !WEAK_INVOICE_WORDS.has(word)
      if (!invoiceWord && !index.isNumberPrefix(word)) continue
      let from = at + 1
      while (from < tokens.length && NUMBER_WORDS.has(tokens.key(from))) from++
      let to = from
      while (
        to < tokens.length &&
        tokens.isDigits(to) &&
        (to === from || joinsGroups(text, tokens.end(to - 1), tokens.start(to)))
      )
        to++
      if (to === from) continue
      const digits = text.slice(tokens.start(from), tokens.end(to - 1))
      if (digits.replace(NON_DIGITS, '').length < 3) continue
      const keys = [word, ...tokens.keys.slice(from, to)]
      if (!namesKnownInvoice(index, keys, digits))
        found.push(text.slice(tokens.start(at), tokens.end(to - 1)))
      at = to - 1
    }
  }
  return found
}

/** The evidence that the payment quotes invoice numbers the books do not have (yet). */
export function awaitingInvoice(numbers: readonly string[]): Evidence {
  return {
    code: 'awaiting_invoice',
    points: 0,
    text: `the text quotes ${numbers.map((number) => `“${number}”`).join(', ')}, which names no invoice in the books yet: the payment waits for it`,
    conflict: 'unexplained',
  }
}

/** A maximal run of letters or of digits, normalized, with where it stands in the source text. */
export type Token = {
  /** Letters upper-cased; digits without leading zeros ("0" stays "0"). */
  text: string
  start: number
  end: number
}

const SEPARATOR = 0
const LETTER = 1
const DIGIT = 2

function classify(text: string, index: number): number {
  const code = text.charCodeAt(index)
  if (code >= 48 && code <= 57) return DIGIT
  if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return LETTER
  if (code < 128) return SEPARATOR
  const char = text[index] as string
  // Beyond ASCII a letter is a character with case; caseless scripts and other digits count as separators.
  return char.toLowerCase() !== char.toUpperCase() ? LETTER : SEPARATOR
}

function normalizeDigits(run: string): string {
  let first = 0
  while (first < run.length - 1 && run.charCodeAt(first) === 48) first++
  return first === 0 ? run : run.slice(first)
}

/**
 * Splits a text (or its characters [from, to), positions still counted in the whole text) into runs of letters and runs of digits; everything else separates them. A letter run next to a
 * digit run is two tokens (`INV1001` is `INV`, `1001`), so an invoice number is only ever found as whole runs.
 */
export function tokenize(text: string, from = 0, to = text.length): Token[] {
  const tokens: Token[] = []
  let index = from
  while (index < to) {
    const kind = classify(text, index)
    if (kind === SEPARATOR) {
      index++
      continue
    }
    const start = index
    while (index < to && classify(text, index) === kind) index++
    const run = text.slice(start, index)
    tokens.push({ text: kind === DIGIT ? normalizeDigits(run) : run.toUpperCase(), start, end: index })
  }
  return tokens
}

/** The token texts of an invoice number or client reference: the key two texts are compared by. */
export function tokenKey(text: string): string[] {
  return tokenize(text).map((token) => token.text)
}

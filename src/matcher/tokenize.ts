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
/** A lower-case ASCII letter: a letter whose run must be upper-cased. */
const LOWER = 3

/** The kind of each ASCII character, read by code (one load, where comparisons per range were several). */
const ASCII_KINDS = new Uint8Array(128)
for (let code = 48; code <= 57; code++) ASCII_KINDS[code] = DIGIT
for (let code = 65; code <= 90; code++) ASCII_KINDS[code] = LETTER
for (let code = 97; code <= 122; code++) ASCII_KINDS[code] = LOWER

/** SEPARATOR, DIGIT, LETTER, or LOWER for a letter the run's upper-casing changes or may change. */
function classify(text: string, index: number): number {
  const code = text.charCodeAt(index)
  if (code < 128) return ASCII_KINDS[code] as number
  const char = text[index] as string
  // Beyond ASCII a letter is a character with case; caseless scripts and other digits count as separators.
  return char.toLowerCase() !== char.toUpperCase() ? LOWER : SEPARATOR
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
    if (kind === DIGIT) {
      // Digits without leading zeros ("0" stays "0"): the run is sliced once, from its first significant digit.
      let first = -1
      while (index < to && classify(text, index) === DIGIT) {
        if (first < 0 && text.charCodeAt(index) !== 48) first = index
        index++
      }
      tokens.push({ text: text.slice(first < 0 ? index - 1 : first, index), start, end: index })
      continue
    }
    // Letters upper-cased: a run of upper-case ASCII letters already is.
    let cased = kind === LOWER
    for (index++; index < to; index++) {
      const next = classify(text, index)
      if (next === LOWER) cased = true
      else if (next !== LETTER) break
    }
    const run = text.slice(start, index)
    tokens.push({ text: cased ? run.toUpperCase() : run, start, end: index })
  }
  return tokens
}

/** The token texts of an invoice number or client reference: the key two texts are compared by. */
export function tokenKey(text: string): string[] {
  return tokenize(text).map((token) => token.text)
}

/**
 * The tokens of a text as parallel lists, no object per token: token `at` is `keys[at]` (letters upper-cased,
 * digits without leading zeros, "0" staying "0"), standing in the source text at [start(at), end(at)).
 */
export class TokenList {
  constructor(
    readonly keys: readonly string[],
    /** Each token's start and end, two numbers per token. */
    private readonly positions: readonly number[],
  ) {}

  /** The tokens `keys`, every one standing at [start, end): a structured code's letters read as tokens. */
  static spanning(keys: readonly string[], start: number, end: number): TokenList {
    const positions = new Array<number>(keys.length * 2)
    for (let at = 0; at < keys.length; at++) {
      positions[at * 2] = start
      positions[at * 2 + 1] = end
    }
    return new TokenList(keys, positions)
  }

  get length(): number {
    return this.keys.length
  }

  key(at: number): string {
    return this.keys[at] as string
  }

  start(at: number): number {
    return this.positions[at * 2] as number
  }

  end(at: number): number {
    return this.positions[at * 2 + 1] as number
  }

  /** Whether token `at` is a number (tokens are runs of digits or of letters: the first character tells). */
  isDigits(at: number): boolean {
    const code = (this.keys[at] as string).charCodeAt(0)
    return code >= 48 && code <= 57
  }
}

const NO_TOKENS = new TokenList([], [])

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

/** How many tokens `tokenize` finds in text[from, to): its lists are made at their size, with no room to grow. */
function countTokens(text: string, from: number, to: number): number {
  let count = 0
  let previous = SEPARATOR
  for (let index = from; index < to; index++) {
    const kind = classify(text, index)
    // A token starts after a separator, and where digits meet letters.
    if (kind !== SEPARATOR && (previous === SEPARATOR || (kind === DIGIT) !== (previous === DIGIT))) count++
    previous = kind
  }
  return count
}

/**
 * Splits a text (or its characters [from, to), positions still counted in the whole text) into runs of letters and runs of digits; everything else separates them. A letter run next to a
 * digit run is two tokens (`INV1001` is `INV`, `1001`), so an invoice number is only ever found as whole runs.
 */
export function tokenize(text: string, from = 0, to = text.length): TokenList {
  const count = countTokens(text, from, to)
  if (count === 0) return NO_TOKENS
  // New lists, not reused ones: storing new strings in a long-lived list costs a write barrier each.
  const keys = new Array<string>(count)
  const positions = new Array<number>(count * 2)
  let token = 0
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
      keys[token] = text.slice(first < 0 ? index - 1 : first, index)
    } else {
      // Letters upper-cased: a run of upper-case ASCII letters already is.
      let cased = kind === LOWER
      for (index++; index < to; index++) {
        const next = classify(text, index)
        if (next === LOWER) cased = true
        else if (next !== LETTER) break
      }
      const run = text.slice(start, index)
      keys[token] = cased ? run.toUpperCase() : run
    }
    positions[token * 2] = start
    positions[token * 2 + 1] = index
    token++
  }
  return new TokenList(keys, positions)
}

/** The token texts of an invoice number or client reference: the key two texts are compared by. */
export function tokenKey(text: string): readonly string[] {
  return tokenize(text).keys
}

import { createRequire } from 'node:module'

// node-postgres's own encoder for parameters (an array becomes its text literal).
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(value: unknown): string | null
}

/**
 * The text literal of a one-dimensional array, read by PostgreSQL as node-postgres's (`arrayString`) is: for
 * strings and nulls, the array's JSON with braces for brackets. Each element comes out quoted and escaped as
 * node-postgres quotes it (`"`, a backslash before `"` and `\`), a null as `null`, which an array literal reads as
 * NULL like node-postgres's `NULL` (case-insensitively); anything else (a number, a Date, a string JSON escapes
 * otherwise) goes to node-postgres's encoder. JSON.stringify makes the literal in one native pass, where
 * node-postgres makes two regular-expression replaces and a concatenation per element.
 *
 * The result is one flat string: a page waiting for its write (the sync encodes pages on arrival) is then a few
 * strings for the GC to copy, not a rope of thousands (node-postgres builds by `+=`) or a slice of a larger one.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  for (const value of values)
    if (value !== null && typeof value !== 'string') return flat(prepareValue(values)!)
  const json = JSON.stringify(values)
  if (hasJsonOnlyEscape(json)) return flat(prepareValue(values)!)
  return flat(`{${json.slice(1, -1)}}`)
}

/**
 * Whether `json` holds an escape that an array literal does not read the same way: a control character (`\n`,
 * `\u0001`) or a lone surrogate (`\udc00`). `\"` and `\\` are escaped alike in both. A scan from backslash to
 * backslash: most columns have none, and a regular expression would read every character.
 */
function hasJsonOnlyEscape(json: string): boolean {
  for (let at = json.indexOf('\\'); at !== -1; at = json.indexOf('\\', at + 2)) {
    const escaped = json.charCodeAt(at + 1)
    if (escaped !== QUOTE && escaped !== BACKSLASH) return true
  }
  return false
}
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Converting to a number is the cheap way to make V8 flatten a string. */
function flat(text: string): string {
  Number(text)
  return text
}

/**
 * What PostgreSQL can store of a JSON value. Its text and jsonb types cannot hold U+0000 (the insert fails) and
 * would silently replace an unpaired surrogate; jsonb and the validators walk values recursively, so a value nested
 * thousands deep (within any sane size limit) overflows a stack. Every door that stores JSON from outside refuses
 * these with a 4xx naming where, instead of failing later with a 500.
 */

/** How deep a stored JSON value may nest. No field bankrec reads or keeps nests anywhere near this. */
export const MAX_JSON_DEPTH = 64

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Where the first U+0000 or unpaired surrogate (which PostgreSQL text and jsonb cannot keep) is; -1 for none. */
export function unstorableIndex(text: string): number {
  const nul = text.indexOf('\u0000')
  const surrogate = LONE_SURROGATE.exec(text)?.index ?? -1
  return nul === -1 ? surrogate : surrogate === -1 ? nul : Math.min(nul, surrogate)
}

export function isUnstorableText(text: string): boolean {
  return text.includes('\u0000') || LONE_SURROGATE.test(text)
}

export const UNSTORABLE_TEXT = 'must not contain U+0000 or an unpaired surrogate'

export type JsonProblem = { path: string; message: string }

/** The first string (key or value) PostgreSQL cannot store, or the first value nested too deep, if any. */
export function unstorableJsonAt(root: unknown, base: string): JsonProblem | undefined {
  type Visit = { value: unknown; path: string; depth: number }
  // Iterative: a JSON body within the limit may nest deeper than the call stack allows.
  const pending: Visit[] = [{ value: root, path: base, depth: 0 }]
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value, path, depth } = visit
    if (typeof value === 'string') {
      if (isUnstorableText(value)) return { path, message: UNSTORABLE_TEXT }
    } else if (typeof value === 'object' && value !== null) {
      if (depth === MAX_JSON_DEPTH) {
        return { path, message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` }
      }
      for (const [key, item] of Object.entries(value)) {
        if (isUnstorableText(key)) return { path: `${path}.${key}`, message: UNSTORABLE_TEXT }
        pending.push({ value: item, path: `${path}.${key}`, depth: depth + 1 })
      }
    }
  }
  return undefined
}

/**
 * Whether JSON text nests objects and arrays deeper than `max`, read from the text alone (brackets inside strings
 * do not count): cheap enough for every webhook body, and it refuses a pathological body before it is parsed.
 */
export function jsonTextNestsDeeperThan(text: string, max: number): boolean {
  // Nesting deeper than max takes more than max opening brackets: counted with indexOf (a native scan), most
  // bodies hold a few and skip the character loop below.
  if (openingBracketsAtMost(text, max)) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

function openingBracketsAtMost(text: string, max: number): boolean {
  let count = 0
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++count > max) return false
    }
  }
  return true
}

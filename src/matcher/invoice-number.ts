import { tokenize } from './tokenize.js'

/**
 * An invoice number taken apart the ways payers write it: `key`, its tokens (`INV-2026-0007` → INV 2026 7);
 * `core`, its digit tokens without the prefix word (2026 7); `compactCore`, those digits as written with the
 * separators dropped (20260007); `coreDigits`, how many digits that is.
 */
export type NumberParts = {
  key: readonly string[]
  core: string[]
  compactCore: string
  coreDigits: number
  /** The number has letters (a prefix word): finding it with them is finding all of it. */
  hasLetters: boolean
}

export function numberParts(number: string): NumberParts {
  const tokens = tokenize(number)
  const core: string[] = []
  let compactCore = ''
  let hasLetters = false
  for (let at = 0; at < tokens.length; at++) {
    if (tokens.isDigits(at)) {
      core.push(tokens.key(at))
      compactCore += number.slice(tokens.start(at), tokens.end(at))
    } else {
      hasLetters = true
    }
  }
  return {
    key: tokens.keys,
    core,
    compactCore,
    coreDigits: core.join('').length,
    hasLetters,
  }
}

/** A payment reference compared letter by letter: upper case, letters and digits only, leading zeros kept. */
export function compactReference(reference: string): string {
  return reference.toUpperCase().replace(/[^0-9A-Z]/g, '')
}

/**
 * An issued payment reference compared letter by letter, keeping a Norwegian KID's mod-11 check digit `-` (for
 * 10) after its digits: `4000900101-` is not the same reference as its body `4000900101`.
 */
export function compactIssuedReference(reference: string): string {
  const compact = compactReference(reference)
  return /^\d+$/.test(compact) && /\d\s*-\s*$/.test(reference) ? `${compact}-` : compact
}

/** Whether a `-` at `at` ends a KID's digits (a mod-11 check digit), not joining them to a next letter or digit. */
export function kidDashAt(text: string, at: number): boolean {
  return text.charCodeAt(at) === 45 && !/[0-9A-Za-z]/.test(text.charAt(at + 1))
}

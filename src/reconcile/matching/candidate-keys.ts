import {
  normalizeName,
  normalizeReference,
  REFERENCE_FIELDS,
  tokenKey,
  type MatchTransaction,
} from '../matcher/index.js'

/**
 * The longest invoice number or client reference, in tokens, that a text is searched for. A number of more tokens
 * is only found when it is a whole RF or SWIFT value.
 */
export const MAX_KEY_TOKENS = 12

/** How an invoice number or client reference is stored for lookup: its token key joined by single spaces. */
export function numberKey(number: string): string {
  return tokenKey(number).join(' ')
}

/**
 * Every run of whole tokens (up to MAX_KEY_TOKENS) of every reference field, as number keys: an invoice can be
 * named by the transaction only if its number key is one of them. The store keeps them, so an invoice that
 * appears after its payment finds the payment by its number, and loads only the invoices these keys name.
 */
export function candidateKeys(
  transaction: Pick<MatchTransaction, (typeof REFERENCE_FIELDS)[number]>,
): string[] {
  const keys = new Set<string>()
  for (const field of REFERENCE_FIELDS) {
    const text = transaction[field]
    if (!text) continue
    for (const part of normalizeReference(text)) {
      const tokens = part.tokens.map((token) => token.text)
      if (part.kind === 'code' && tokens.length > 0) keys.add(tokens.join(' '))
      for (let start = 0; start < tokens.length; start++) {
        for (let end = start + 1; end <= Math.min(tokens.length, start + MAX_KEY_TOKENS); end++) {
          keys.add(tokens.slice(start, end).join(' '))
        }
      }
    }
  }
  return [...keys].sort()
}

/** The payer as invoices' customer names are compared: normalized, null when nothing is left. */
export function payerKey(counterpartyName: string | null | undefined): string | null {
  return normalizeName(counterpartyName) || null
}

import {
  accountTail,
  isValidOgm,
  kidDashAt,
  nameKey,
  normalizeName,
  normalizeReference,
  parseMaskedAccount,
  REFERENCE_FIELDS,
  referenceTypos,
  rfCheckDigits,
  STRUCTURED_LABELS,
  tokenKey,
  typoVariants,
  unwrapRemittance,
  validSchemes,
  type MatchTransaction,
} from '../matcher/index.js'
import type { CustomerLinkRow, CustomerRow } from '../store/index.js'

/**
 * The longest invoice number or client reference, in tokens, that a text is searched for. A number of more tokens
 * is only found when it is a whole RF or SWIFT value.
 */
export const MAX_KEY_TOKENS = 12

/** How an invoice number or client reference is stored for lookup: its token key joined by single spaces. */
export function numberKey(number: string): string {
  return tokenKey(number).join(' ')
}

function isDigits(text: string): boolean {
  return /^\d+$/.test(text)
}

/**
 * Every key a transaction's reference fields may name an invoice by (the matcher's `invoiceMatchKeys` of the
 * invoices it can name are among them): runs of up to MAX_KEY_TOKENS whole tokens, each token and each run of
 * digit groups written together (leading zeros kept), structured references letter by letter (an RF's body, the RF
 * with corrected check digits), and for a structured reference whose check digits fail, its one-typo variants.
 * The store keeps them, so an invoice that appears after its payment finds the payment, and loads only the
 * invoices these keys name.
 */
export function candidateKeys(
  transaction: Pick<MatchTransaction, (typeof REFERENCE_FIELDS)[number]>,
): string[] {
  const keys = new Set<string>()
  for (const field of REFERENCE_FIELDS) {
    const written = transaction[field]
    if (!written) continue
    // Lines wrapped at 27 or 35 characters are read whole, as the matcher reads them.
    const text = unwrapRemittance(written)
    for (const part of normalizeReference(text)) {
      const tokens = part.tokens.keys
      if (part.kind === 'code') {
        if (tokens.length > 0) keys.add(tokens.join(' '))
        if (part.compact) keys.add(part.compact)
        if (part.via === 'rf') {
          const body = part.compact.slice(4)
          keys.add(body)
          if (!part.valid && /^[0-9A-Z]{1,21}$/.test(body)) keys.add(`RF${rfCheckDigits(body)}${body}`)
        }
        if (part.via === 'ogm' && !isValidOgm(part.compact))
          for (const variant of typoVariants(part.compact)) keys.add(variant)
        continue
      }
      for (let start = 0; start < tokens.length; start++) {
        for (let end = start + 1; end <= Math.min(tokens.length, start + MAX_KEY_TOKENS); end++) {
          keys.add(tokens.slice(start, end).join(' '))
        }
      }
      const raw = tokens.map((_, at) => text.slice(part.tokens.start(at), part.tokens.end(at)).toUpperCase())
      for (let start = 0; start < raw.length; start++) {
        keys.add(raw[start] as string)
        let run = raw[start] as string
        if (!isDigits(run)) continue
        let last = start
        for (let end = start + 1; end < raw.length && isDigits(raw[end] as string); end++) {
          run += raw[end]
          keys.add(run)
          last = end
        }
        // A KID's mod-11 check digit `-` after the digits is part of what is checked.
        const written = kidDashAt(text, part.tokens.end(last)) ? `${run}-` : run
        const before = start > 0 ? part.tokens.key(start - 1) : undefined
        if (
          before !== undefined &&
          STRUCTURED_LABELS.has(before) &&
          run.length >= 4 &&
          validSchemes(written).length === 0
        ) {
          // Invoices are stored under their reference's letters and digits: a KID's `-` is not among them.
          for (const variant of referenceTypos(written)) keys.add(variant.replace('-', ''))
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

/**
 * Who may be paying, as keys both sides share: `n:` a name key, `t:` an account's last four characters, `la:` a
 * masked account as a learned link holds it, `ln:` a name as a learned link holds it.
 */
export function payerKeys(
  transaction: Pick<MatchTransaction, 'counterpartyName' | 'counterpartyAccountMasked'>,
): string[] {
  const keys: string[] = []
  const name = nameKey(transaction.counterpartyName)
  // `n:` as customers' name keys are written (normalizeName: wide, so a key loads every spelling of a name).
  if (name) keys.push(`n:${normalizeName(transaction.counterpartyName)}`, `ln:${name.full}`)
  const account = parseMaskedAccount(transaction.counterpartyAccountMasked)
  if (account) keys.push(`t:${accountTail(account.tail)}`, `la:${account.compact}`)
  return keys
}

/** The payer keys that lead to a customer of the master data: its names, accounts and learned links. */
export function customerPayerKeys(customer: CustomerRow, links: readonly CustomerLinkRow[]): string[] {
  return [
    ...customer.name_keys.map((key) => `n:${key}`),
    ...customer.account_tails.map((tail) => `t:${tail}`),
    ...links.map((link) => `${link.kind === 'account' ? 'la' : 'ln'}:${link.key}`),
  ]
}

/** The key a learned link is compared by: the masked account letter by letter, or the name's full key. */
export function linkKey(kind: 'account' | 'name', value: string): string | null {
  return kind === 'account' ? (parseMaskedAccount(value)?.compact ?? null) : (nameKey(value)?.full ?? null)
}

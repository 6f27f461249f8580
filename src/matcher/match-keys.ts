import { numberParts, compactReference } from './invoice-number.js'
import { tokenKey } from './tokenize.js'

/** The key an invoice number is compared by: its tokens, so `INV-0001001` and `inv 1001` are one. */
export function normalizedInvoiceNumber(number: string): string {
  return tokenKey(number).join(' ')
}

/**
 * The keys an invoice can be named by, as strings the store indexes: its number's token key (`INV 2024 102`),
 * its core's token key (`2024 102`), its core written together (`20240102`), its number written together
 * (`INV20240102`, an RF body) and its issued payment reference written together.
 */
export function invoiceMatchKeys(invoice: { number: string; paymentReference?: string | null }): string[] {
  const parts = numberParts(invoice.number)
  const keys = new Set([parts.key.join(' '), compactReference(invoice.number)])
  if (parts.core.length > 0) keys.add(parts.core.join(' '))
  if (parts.core.length > 1) keys.add(parts.compactCore)
  if (invoice.paymentReference) keys.add(compactReference(invoice.paymentReference))
  keys.delete('')
  return [...keys].sort()
}

/** Every variant of a digit string with one digit changed or two neighbours swapped: the typos of a reference. */
export function typoVariants(digits: string): string[] {
  const variants = new Set<string>()
  for (let at = 0; at < digits.length; at++) {
    for (let digit = 0; digit <= 9; digit++) {
      if (String(digit) !== digits[at]) variants.add(`${digits.slice(0, at)}${digit}${digits.slice(at + 1)}`)
    }
    if (at + 1 < digits.length && digits[at] !== digits[at + 1]) {
      variants.add(`${digits.slice(0, at)}${digits[at + 1]}${digits[at]}${digits.slice(at + 2)}`)
    }
  }
  return [...variants]
}

/**
 * The typos of a national reference as `compactIssuedReference` writes it: `typoVariants`, and for a KID the check
 * digit confused with the mod-11 `-` (a digit for `-`, `-` for a digit, `-` dropped).
 */
export function referenceTypos(compact: string): string[] {
  if (compact.endsWith('-')) {
    const body = compact.slice(0, -1)
    const checkDigits = Array.from({ length: 10 }, (_, digit) => `${body}${digit}`)
    return [...typoVariants(body).map((variant) => `${variant}-`), ...checkDigits]
  }
  return [...typoVariants(compact), `${compact.slice(0, -1)}-`, `${compact}-`]
}

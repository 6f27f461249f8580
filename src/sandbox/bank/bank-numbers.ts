import type { Random } from '../random.js'

/** n random digits as a string, leading zeros kept. */
export function digits(random: Random, n: number): string {
  let out = ''
  for (let i = 0; i < n; i++) out += String(random.int(0, 9))
  return out
}

/** A nine-digit ABA routing number with a valid checksum (weights 3, 7, 1). */
export function abaRoutingNumber(random: Random): string {
  const body = `0${random.int(1, 9)}${digits(random, 6)}`
  const weights = [3, 7, 1, 3, 7, 1, 3, 7]
  const sum = body.split('').reduce((acc, d, i) => acc + Number(d) * weights[i]!, 0)
  return `${body}${(10 - (sum % 10)) % 10}`
}

/** An IBAN with ISO 13616 mod-97 check digits for a country code and its national BBAN. */
export function iban(countryCode: string, bban: string): string {
  const rearranged = `${bban}${countryCode}00`
    .toUpperCase()
    .split('')
    .map((c) => (/[A-Z]/.test(c) ? String(c.charCodeAt(0) - 55) : c))
    .join('')
  const check = 98n - (BigInt(rearranged) % 97n)
  return `${countryCode}${String(check).padStart(2, '0')}${bban}`
}

/** Whether an IBAN's check digits are right. */
export function isValidIban(value: string): boolean {
  const rearranged = `${value.slice(4)}${value.slice(0, 4)}`
    .toUpperCase()
    .split('')
    .map((c) => (/[A-Z]/.test(c) ? String(c.charCodeAt(0) - 55) : c))
    .join('')
  return /^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(value) && BigInt(rearranged) % 97n === 1n
}

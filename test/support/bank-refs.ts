/**
 * Deterministic helpers for the realistic matching books (scripts/generate-matching-book.ts): a seeded random
 * source and the structured references banks and customers print, computed from their standards here rather than
 * borrowed from the engine, so a corpus built with them checks the engine instead of repeating it.
 */
import { composeIBAN, friendlyFormatIBAN, isValidIBAN } from 'ibantools'

/** mulberry32: a small seeded generator, the same sequence on every machine. */
export class Random {
  private state: number
  constructor(seed: number) {
    this.state = seed >>> 0
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }
  chance(probability: number): boolean {
    return this.next() < probability
  }
  digits(count: number): string {
    let text = ''
    for (let at = 0; at < count; at++) text += String(this.int(0, 9))
    return text
  }
}

/** The remainder mod 97 of a long digit string (ISO 7064 MOD 97-10 arithmetic). */
function mod97(digits: string): number {
  let rest = 0
  for (const char of digits) rest = (rest * 10 + Number(char)) % 97
  return rest
}

/** ISO 11649 creditor reference: `RF` + two check digits + the reference (letters count A=10 … Z=35). */
export function rfReference(reference: string): string {
  const converted = `${reference}RF00`
    .toUpperCase()
    .split('')
    .map((char) => (/[A-Z]/.test(char) ? String(char.charCodeAt(0) - 55) : char))
    .join('')
  return `RF${String(98 - mod97(converted)).padStart(2, '0')}${reference.toUpperCase()}`
}

/** Belgian structured communication (OGM/VCS): 10 digits + mod-97 check (97 for 0), printed +++123/4567/89012+++. */
export function ogmReference(tenDigits: string): string {
  const check = mod97(tenDigits) === 0 ? 97 : mod97(tenDigits)
  const all = `${tenDigits}${String(check).padStart(2, '0')}`
  return `+++${all.slice(0, 3)}/${all.slice(3, 7)}/${all.slice(7)}+++`
}

/** Finnish reference (viitenumero): the base + a check digit weighted 7, 3, 1 from the right. */
export function finnishReference(base: string): string {
  const weights = [7, 3, 1]
  let sum = 0
  base
    .split('')
    .reverse()
    .forEach((char, at) => (sum += Number(char) * (weights[at % 3] as number)))
  return `${base}${(10 - (sum % 10)) % 10}`
}

/** Norwegian KID with a MOD10 (Luhn) check digit. */
export function kidReference(base: string): string {
  let sum = 0
  base
    .split('')
    .reverse()
    .forEach((char, at) => {
      let value = Number(char) * (at % 2 === 0 ? 2 : 1)
      if (value > 9) value -= 9
      sum += value
    })
  return `${base}${(10 - (sum % 10)) % 10}`
}

/** A valid IBAN of the country: a random BBAN of its format, drawn again until the national check holds. */
export function randomIban(random: Random, country: string, bbanOf: (random: Random) => string): string {
  for (;;) {
    const iban = composeIBAN({ countryCode: country, bban: bbanOf(random) })
    if (iban && isValidIBAN(iban)) return friendlyFormatIBAN(iban) ?? iban
  }
}

/** A US ABA routing number with its 3-7-1 check digit. */
export function abaRouting(random: Random): string {
  const base = `0${random.int(1, 9)}${random.digits(6)}`
  const weights = [3, 7, 1, 3, 7, 1, 3, 7]
  const sum = base.split('').reduce((total, char, at) => total + Number(char) * (weights[at] as number), 0)
  return `${base}${(10 - (sum % 10)) % 10}`
}

/** How banks show a counterparty IBAN: the country, check digits and last four, the middle starred. */
export function maskIban(iban: string): string {
  const compact = iban.replace(/\s+/g, '')
  return `${compact.slice(0, 4)} **** **** ${compact.slice(-4)}`
}

/** How US banks show an account number: its last four. */
export function maskAccount(account: string): string {
  return `XXXXXX${account.replace(/\D/g, '').slice(-4)}`
}

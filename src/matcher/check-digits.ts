/**
 * Check-digit schemes of structured payment references (docs/matching.md, "Issued references"). Small pure
 * functions over digit strings; each is tested against the scheme's published examples beside this file.
 */

/** ISO 7064 MOD 97-10 as ISO 11649 and IBAN apply it: digits stay, letters become 10 (A) to 35 (Z). */
export function mod97(text: string): number {
  let remainder = 0
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    remainder = code <= 57 ? (remainder * 10 + code - 48) % 97 : (remainder * 100 + code - 55) % 97
  }
  return remainder
}

function isDigits(text: string, min: number, max: number): boolean {
  if (text.length < min || text.length > max) return false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code < 48 || code > 57) return false
  }
  return true
}

/** Luhn (mod 10), as Norwegian KID references and Swedish OCR use it: the last digit checks the rest. */
export function luhnCheckDigit(body: string): number {
  let sum = 0
  for (let index = body.length - 1, double = true; index >= 0; index--, double = !double) {
    let digit = body.charCodeAt(index) - 48
    if (double) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2
    sum += digit
  }
  return (10 - (sum % 10)) % 10
}

/** Mod 11 with weights 2–7 from the right (Norwegian KID); 10 is written `-`, which this returns as -1. */
export function mod11CheckDigit(body: string): number {
  let sum = 0
  for (let index = body.length - 1, weight = 2; index >= 0; index--, weight = weight === 7 ? 2 : weight + 1) {
    sum += (body.charCodeAt(index) - 48) * weight
  }
  const check = 11 - (sum % 11)
  return check === 11 ? 0 : check === 10 ? -1 : check
}

/** Finnish reference (viitenumero): weights 7, 3, 1 from the right, the check digit tops the sum up to a ten. */
export function finnishCheckDigit(body: string): number {
  const weights = [7, 3, 1]
  let sum = 0
  for (let index = body.length - 1, w = 0; index >= 0; index--, w = (w + 1) % 3) {
    sum += (body.charCodeAt(index) - 48) * (weights[w] as number)
  }
  return (10 - (sum % 10)) % 10
}

const RECURSIVE_MOD10 = [0, 9, 4, 6, 8, 2, 7, 1, 3, 5]

/** Swiss QR reference (and ISR): modulo 10, recursive. */
export function recursiveMod10CheckDigit(body: string): number {
  let carry = 0
  for (let index = 0; index < body.length; index++) {
    carry = RECURSIVE_MOD10[(carry + body.charCodeAt(index) - 48) % 10] as number
  }
  return (10 - carry) % 10
}

/** The structured reference schemes bankrec reads. `rf` is ISO 11649; the others are national. */
export type ReferenceScheme = 'rf' | 'be_ogm' | 'ch_qrr' | 'no_kid' | 'fi_ref'

export const SCHEME_NAMES: Record<ReferenceScheme, string> = {
  rf: 'ISO 11649 RF creditor reference',
  be_ogm: 'Belgian structured communication',
  ch_qrr: 'Swiss QR reference',
  no_kid: 'Norwegian KID',
  fi_ref: 'Finnish reference number',
}

/** ISO 11649: `RF` + 2 check digits + 1–21 letters and digits, upper case, no spaces. */
export function isValidRf(compact: string): boolean {
  if (compact.length < 5 || compact.length > 25 || !compact.startsWith('RF')) return false
  if (!isDigits(compact.slice(2, 4), 2, 2) || !/^[0-9A-Z]+$/.test(compact.slice(4))) return false
  return mod97(`${compact.slice(4)}${compact.slice(0, 4)}`) === 1
}

/** Belgian OGM/VCS: 12 digits, the last two the first ten mod 97 (97 when that is 0). */
export function isValidOgm(digits: string): boolean {
  if (!isDigits(digits, 12, 12)) return false
  const check = mod97(digits.slice(0, 10))
  return Number(digits.slice(10)) === (check === 0 ? 97 : check)
}

/** Swiss QR reference: 27 digits, the last a recursive mod 10 check digit. */
export function isValidQrr(digits: string): boolean {
  return (
    isDigits(digits, 27, 27) && recursiveMod10CheckDigit(digits.slice(0, 26)) === digits.charCodeAt(26) - 48
  )
}

/** Norwegian KID: 2–25 digits, the last a Luhn (mod 10) or mod 11 check digit (`-` for 10). */
export function isValidKid(text: string): boolean {
  const body = text.slice(0, -1)
  const last = text[text.length - 1]
  if (!isDigits(body, 1, 24)) return false
  if (last === '-') return mod11CheckDigit(body) === -1
  if (last === undefined || last < '0' || last > '9') return false
  const digit = last.charCodeAt(0) - 48
  return luhnCheckDigit(body) === digit || mod11CheckDigit(body) === digit
}

/** Finnish reference number: 4–20 digits, the last from weights 7, 3, 1. */
export function isValidFinnish(digits: string): boolean {
  return (
    isDigits(digits, 4, 20) &&
    finnishCheckDigit(digits.slice(0, -1)) === digits.charCodeAt(digits.length - 1) - 48
  )
}

/**
 * The schemes whose check digits `compact` (upper case, no separators) passes, strongest first. A plain number
 * may pass several national schemes by chance; the caller knows from the invoice which one it issued.
 */
export function validSchemes(compact: string): ReferenceScheme[] {
  if (compact.startsWith('RF')) return isValidRf(compact) ? ['rf'] : []
  const schemes: ReferenceScheme[] = []
  if (isValidQrr(compact)) schemes.push('ch_qrr')
  if (isValidOgm(compact)) schemes.push('be_ogm')
  if (isValidKid(compact)) schemes.push('no_kid')
  if (isValidFinnish(compact)) schemes.push('fi_ref')
  return schemes
}

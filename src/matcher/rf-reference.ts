import { mod97 } from './check-digits.js'

const MAX_BODY_LENGTH = 21
const ALPHANUMERIC = /^[0-9A-Z]+$/

function isBody(body: string): boolean {
  return body.length >= 1 && body.length <= MAX_BODY_LENGTH && ALPHANUMERIC.test(body)
}

/** Whether `RF` + `checkDigits` + `body` (upper case, no spaces) is an ISO 11649 reference with valid check digits. */
export function isValidRfReference(checkDigits: string, body: string): boolean {
  return /^\d\d$/.test(checkDigits) && isBody(body) && mod97(`${body}RF${checkDigits}`) === 1
}

/** The check digits that make `body` a valid ISO 11649 reference (`RF` + them + body). */
export function rfCheckDigits(body: string): string {
  const upper = body.toUpperCase()
  if (!isBody(upper)) throw new RangeError('an RF reference body is 1 to 21 letters and digits')
  return String(98 - mod97(`${upper}RF00`)).padStart(2, '0')
}

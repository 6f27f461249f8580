/**
 * How payers write an invoice number in real remittance data. Each style still names the invoice under bankrec's
 * matching rules (docs/matching.md, rule 1); the demo story uses them to show that.
 */
export const REFERENCE_STYLES = [
  'exact',
  'lower case and spaces',
  'leading zeros',
  'glued prefix',
  'words around it',
  'customer reference only',
  'free text in the description',
  'RF creditor reference',
  'RF creditor reference, printed',
  'SWIFT /INV/ code',
] as const
export type ReferenceStyle = (typeof REFERENCE_STYLES)[number]

/** The reference fields of a payment, as the bank reports them. */
export type ReferenceFields = {
  paymentReference: string | null
  customerReference: string | null
  description: string | null
}

function mod97(text: string): number {
  let remainder = 0
  for (const char of text) {
    const code = char.charCodeAt(0)
    // ISO 7064 as ISO 11649 applies it: digits stay, letters become 10 (A) to 35 (Z).
    remainder = code <= 57 ? (remainder * 10 + code - 48) % 97 : (remainder * 100 + code - 55) % 97
  }
  return remainder
}

/** An ISO 11649 creditor reference (`RF` + two check digits + body) for an alphanumeric body. */
export function creditorReference(body: string): string {
  const upper = body.toUpperCase()
  if (!/^[0-9A-Z]{1,21}$/.test(upper))
    throw new RangeError('an RF reference body is 1 to 21 letters and digits')
  return `RF${String(98 - mod97(`${upper}RF00`)).padStart(2, '0')}${upper}`
}

/** `RF18539007547034` as printed on a paper slip: `RF18 5390 0754 7034`. */
function printed(reference: string): string {
  return reference.match(/.{1,4}/g)!.join(' ')
}

/** `INV-2026-0007` → `0007` for the last digit group padded with two more zeros, and so on. */
function withLeadingZeros(number: string): string {
  return number.replace(/(\d+)$/, '00$1')
}

/**
 * The reference fields a payer sends for one invoice number in one style. The RF styles carry the number in the
 * description too, as banks show it: an RF body has no separators, so the description is what names an invoice
 * whose number has several digit groups.
 */
export function writeReference(number: string, style: ReferenceStyle, payer: string): ReferenceFields {
  const none = { paymentReference: null, customerReference: null }
  switch (style) {
    case 'exact':
      return { ...none, paymentReference: number, description: null }
    case 'lower case and spaces':
      return { ...none, paymentReference: number.toLowerCase().replace(/-/g, ' '), description: null }
    case 'leading zeros':
      return { ...none, paymentReference: withLeadingZeros(number), description: null }
    case 'glued prefix':
      return { ...none, paymentReference: number.replace(/^([A-Za-z]+)-/, '$1'), description: null }
    case 'words around it':
      return {
        ...none,
        paymentReference: `Invoice no. ${number.replace(/-/g, ' / ')} - thanks`,
        description: null,
      }
    case 'customer reference only':
      return { ...none, customerReference: number, description: null }
    case 'free text in the description':
      return { ...none, description: `${payer} payment for invoice ${number}, thank you` }
    case 'RF creditor reference':
      return {
        ...none,
        paymentReference: creditorReference(number.replace(/[^0-9A-Za-z]/g, '')),
        description: `${payer} ${number}`,
      }
    case 'RF creditor reference, printed':
      return {
        ...none,
        paymentReference: printed(creditorReference(number.replace(/[^0-9A-Za-z]/g, ''))),
        description: `${payer} ${number}`,
      }
    case 'SWIFT /INV/ code':
      return { ...none, paymentReference: `/INV/${number}/260301`, description: null }
  }
}

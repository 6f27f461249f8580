import { describe, expect, it } from 'vitest'
import { normalizeReference, type ReferencePart } from './normalize-reference.js'
import { rfCheckDigits } from './rf-reference.js'

function summary(parts: ReferencePart[]): string[] {
  return parts.map((part) => {
    const tokens = part.tokens.keys.join(' ')
    if (part.kind === 'text') return `text:${tokens}`
    return `${part.via}${part.exactOnly ? '!' : ''}${part.valid ? '' : '?'}:${tokens}`
  })
}

describe('normalizeReference', () => {
  it('leaves plain text as one free-text part', () => {
    expect(summary(normalizeReference('Invoice INV-1001'))).toEqual(['text:INVOICE INV 1001'])
  })

  it('reads a valid printed RF reference as an exact code and the text after it as free text', () => {
    expect(summary(normalizeReference('RF18 5390 0754 7034 thanks'))).toEqual([
      'rf!:539007547034',
      'text:THANKS',
    ])
  })

  it('reads a valid electronic RF reference', () => {
    const reference = `RF${rfCheckDigits('INV1001')}INV1001`
    expect(summary(normalizeReference(`pay ${reference}`))).toEqual(['text:PAY', 'rf!:INV 1001'])
  })

  it('marks an RF reference with invalid check digits, and reads none of its groups as free text', () => {
    expect(summary(normalizeReference('RF19 5390 0754 7034'))).toEqual(['rf!?:539007547034'])
  })

  it('reads a Belgian structured communication and checks it (mod 97)', () => {
    expect(summary(normalizeReference('+++123/4567/89002+++ merci'))).toEqual([
      'ogm!:123456789002',
      'text:MERCI',
    ])
    expect(summary(normalizeReference('***123/4567/89003***'))).toEqual(['ogm!?:123456789003'])
  })

  it('does not read RF inside a longer word', () => {
    expect(summary(normalizeReference('XRF18 5390'))).toEqual(['text:XRF 18 5390'])
  })

  it('reads SWIFT /INV/ values without their date and /RFB/ values', () => {
    expect(summary(normalizeReference('/INV/INV-1001/20240301/RFB/PO-7'))).toEqual([
      'swift:INV 1001',
      'swift:PO 7',
    ])
  })
})

import { describe, expect, it } from 'vitest'
import { isValidRfReference, rfCheckDigits } from './rf-reference.js'

describe('ISO 11649 RF references', () => {
  it('accepts the standard example RF18 5390 0754 7034', () => {
    expect(isValidRfReference('18', '539007547034')).toBe(true)
  })

  it('rejects wrong check digits', () => {
    expect(isValidRfReference('19', '539007547034')).toBe(false)
    expect(isValidRfReference('00', '539007547034')).toBe(false)
  })

  it('computes check digits that validate, letters included', () => {
    for (const body of ['INV1001', 'A', '539007547034', 'ABCDEFGHIJKLMNOPQRSTU']) {
      expect(isValidRfReference(rfCheckDigits(body), body)).toBe(true)
    }
    expect(rfCheckDigits('539007547034')).toBe('18')
  })

  it('rejects a body longer than 21 characters or with other characters', () => {
    expect(isValidRfReference('00', 'A'.repeat(22))).toBe(false)
    expect(isValidRfReference('00', 'INV-1')).toBe(false)
    expect(() => rfCheckDigits('')).toThrow(RangeError)
  })
})

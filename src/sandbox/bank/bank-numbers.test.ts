import { describe, expect, it } from 'vitest'
import { createRandom } from '../random.js'
import { abaRoutingNumber, digits, iban, isValidIban } from './bank-numbers.js'

describe('bank numbers', () => {
  it('computes the check digits of a known IBAN', () => {
    expect(iban('GB', 'WEST12345698765432')).toBe('GB82WEST12345698765432')
    expect(isValidIban('GB82WEST12345698765432')).toBe(true)
    expect(isValidIban('GB83WEST12345698765432')).toBe(false)
  })

  it('draws ABA routing numbers whose checksum holds', () => {
    const random = createRandom(7)
    for (let i = 0; i < 50; i++) {
      const routing = abaRoutingNumber(random)
      expect(routing).toMatch(/^\d{9}$/)
      const d = routing.split('').map(Number)
      const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!)
      expect(sum % 10).toBe(0)
    }
  })

  it('keeps leading zeros in drawn digits', () => {
    const random = createRandom(1)
    const drawn = Array.from({ length: 200 }, () => digits(random, 4))
    expect(drawn.every((d) => d.length === 4)).toBe(true)
    expect(drawn.some((d) => d.startsWith('0'))).toBe(true)
  })
})

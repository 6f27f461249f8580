import { Decimal } from 'decimal.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { centsOf, formatUnits, toUnits } from './money.js'

describe('money units', () => {
  it('parses decimal strings and Decimals exactly and formats them back without trailing zeros', () => {
    for (const [input, output] of [
      ['100.00', '100'],
      ['-0.10', '-0.1'],
      ['.5', '0.5'],
      ['000123.450', '123.45'],
      ['0.000000000000000001', '0.000000000000000001'],
      ['123456789012345678901234.5', '123456789012345678901234.5'],
    ] as const) {
      expect(formatUnits(toUnits(input))).toBe(output)
    }
    expect(formatUnits(toUnits(new Decimal('1e3')))).toBe('1000')
    expect(toUnits('0.1') + toUnits('0.2')).toBe(toUnits('0.3'))
  })

  it('refuses more than 18 decimal places instead of rounding', () => {
    expect(() => toUnits('0.0000000000000000001')).toThrow(RangeError)
  })

  it('refuses text that is not a number', () => {
    expect(() => toUnits('abc')).toThrow()
    expect(() => toUnits('')).toThrow(RangeError)
  })

  it('reads short plain amounts (its fast path) exactly as it reads the same amount given as a Decimal', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', '-'),
        fc.stringMatching(/^\d{1,15}$/),
        fc.nat({ max: 15 }),
        (sign, digits, point) => {
          const at = Math.min(point, digits.length)
          const text = `${sign}${digits.slice(0, digits.length - at)}.${digits.slice(digits.length - at)}`
          expect(toUnits(text)).toBe(toUnits(new Decimal(text)))
          expect(toUnits(text.replace(/\.$/, ''))).toBe(toUnits(new Decimal(text)))
        },
      ),
    )
  })

  it('counts cents only when exact, positive and safe', () => {
    expect(centsOf(toUnits('12.34'))).toBe(1234)
    expect(centsOf(toUnits('1000'))).toBe(100000)
    expect(centsOf(toUnits('0.001'))).toBe(-1)
    expect(centsOf(0n)).toBe(-1)
    expect(centsOf(toUnits('-5.00'))).toBe(-1)
    expect(centsOf(toUnits('90071992547409.93'))).toBe(-1)
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 40n }),
        fc.bigInt({ min: 1n, max: 10n ** 40n }),
        (a, b) => {
          const [x, y] = [centsOf(a), centsOf(b)]
          if (x >= 0 && y >= 0) expect(x === y).toBe(a === b)
        },
      ),
    )
  })
})

import { describe, expect, it } from 'vitest'
import { amountIn, currencyDecimals } from './currency-decimals.js'

describe('currency decimals', () => {
  it('follows ISO 4217 minor units: JPY 0, EUR and USD 2, KWD and BHD 3, an unknown code 2', () => {
    expect([currencyDecimals('JPY'), currencyDecimals('EUR'), currencyDecimals('USD')]).toEqual([0, 2, 2])
    expect([currencyDecimals('KWD'), currencyDecimals('BHD'), currencyDecimals('USDC')]).toEqual([3, 3, 2])
  })

  it('pads to the minor unit and never rounds a finer amount away', () => {
    expect(amountIn('1500', 'JPY')).toBe('1500')
    expect(amountIn('12.5', 'EUR')).toBe('12.50')
    expect(amountIn('-7', 'KWD')).toBe('-7.000')
    expect(amountIn('0.001', 'USD')).toBe('0.001')
    expect(amountIn('1234.5', 'EUR', ',')).toBe('1234,50')
  })
})

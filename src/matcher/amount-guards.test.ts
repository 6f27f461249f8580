import { describe, expect, it } from 'vitest'
import { plausiblePart, tokenAmount } from './amount-guards.js'
import { toUnits } from './money.js'

describe('plausiblePart', () => {
  const part = (amount: string, open: string) => plausiblePart(toUnits(amount), toUnits(open))

  it('is an equal instalment or a round percentage of what is open, to the cent', () => {
    expect(part('500.00', '1000.00')).toBe(true)
    expect(part('333.33', '1000.00')).toBe(true)
    expect(part('250.00', '1000.00')).toBe(true)
    expect(part('300.00', '1000.00')).toBe(true)
    expect(part('83.33', '1000.00')).toBe(true)
  })

  it('is not any other amount, nor the whole or more', () => {
    expect(part('737.45', '1500.00')).toBe(false)
    expect(part('119.00', '2380.00')).toBe(false)
    expect(part('1000.00', '1000.00')).toBe(false)
    expect(part('1200.00', '1190.00')).toBe(false)
  })
})

describe('tokenAmount', () => {
  const token = (amount: string, open: string) => tokenAmount(toUnits(amount), toUnits(open))

  it('is at most one currency unit and at most 1 % of what is open', () => {
    expect(token('0.01', '238.00')).toBe(true)
    expect(token('1.00', '100.00')).toBe(true)
  })

  it('is not a unit of a small invoice, nor more than a unit of a large one', () => {
    expect(token('1.00', '99.99')).toBe(false)
    expect(token('1.01', '10000.00')).toBe(false)
    expect(token('0.00', '100.00')).toBe(false)
  })
})

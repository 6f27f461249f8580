import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { plausiblePart, tokenAmount } from './amount-guards.js'
import { SCALE, toUnits } from './money.js'

const CENT = 10n ** BigInt(SCALE - 2)

/** The rule in money units, as it was written before amounts in whole cents were compared as JS integers. */
function plausibleInUnits(amount: bigint, open: bigint): boolean {
  if (amount <= 0n || amount >= open) return false
  for (const parts of [2n, 3n, 4n, 5n, 6n, 10n, 12n]) {
    const difference = amount * parts - open
    if ((difference < 0n ? -difference : difference) <= parts * CENT) return true
  }
  for (const percent of [10n, 20n, 25n, 30n, 40n, 50n, 60n, 70n, 75n, 80n, 90n]) {
    const difference = amount * 100n - open * percent
    if ((difference < 0n ? -difference : difference) < 100n * CENT) return true
  }
  return false
}

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

  it('says in cents what it says in money units, near every share and at the edge of safe integers', () => {
    const cents = fc.oneof(
      fc.bigInt({ min: 1n, max: 10_000_000n }),
      fc.bigInt({ min: 1n, max: BigInt(Number.MAX_SAFE_INTEGER) }),
    )
    const units = fc.oneof(
      cents.map((count) => count * CENT),
      fc.bigInt({ min: 1n, max: 10n ** 24n }),
    )
    // Amounts near a share of the open amount, where the tests turn.
    const nearShare = fc
      .tuple(cents, fc.constantFrom(2n, 3n, 4n, 10n, 12n, 100n), fc.bigInt({ min: -3n, max: 3n }))
      .map(([open, share, off]) => [(open / share + off) * CENT, open * CENT] as const)
    fc.assert(
      fc.property(fc.oneof(fc.tuple(units, units), nearShare), ([amount, open]) => {
        expect(plausiblePart(amount, open)).toBe(plausibleInUnits(amount, open))
      }),
      { numRuns: 5_000 },
    )
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

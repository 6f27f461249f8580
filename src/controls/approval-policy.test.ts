import fc from 'fast-check'
import { Decimal } from 'decimal.js'
import { describe, expect, it } from 'vitest'
import { decideApproval, NO_APPROVALS } from './approval-policy.js'
import { normalizeCurrency } from './currency.js'

const policy = { ...NO_APPROVALS, threshold: { all: '500', byCurrency: { JPY: '50000', USD: '400' } } }
const none = { invoice: '0', payment: '0', maker: '0' }

describe('normalizeCurrency', () => {
  it('trims and upper-cases an ISO 4217 code, and refuses anything else', () => {
    expect([' usd', 'Eur ', 'JPY'].map(normalizeCurrency)).toEqual(['USD', 'EUR', 'JPY'])
    expect(['US D', 'USDC', 'XQZ', '', null, 'ЕUR'].map(normalizeCurrency)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ])
  })
})

describe('decideApproval', () => {
  it('looks the threshold up by the normalised currency', () => {
    const waits = (amount: string, currency: string) =>
      decideApproval(policy, { amount, currency, counted: none }).needsSecondPerson
    expect([waits('400', ' usd '), waits('400.01', 'usd')]).toEqual([false, true])
    expect([waits('50000', 'jpy'), waits('50000.01', 'JPY')]).toEqual([false, true])
    expect([waits('500', 'EUR'), waits('500.01', 'eur')]).toEqual([false, true])
  })

  it('needs a second person for a currency that is no ISO code once any threshold is set', () => {
    expect(decideApproval(policy, { amount: '1', currency: 'XQZ', counted: none })).toMatchObject({
      needsSecondPerson: true,
      currency: null,
    })
    expect(
      decideApproval(NO_APPROVALS, { amount: '1', currency: 'XQZ', counted: none }).needsSecondPerson,
    ).toBe(false)
  })

  it('counts what is already counted per invoice, per payment and per maker', () => {
    for (const scope of ['invoice', 'payment', 'maker'] as const) {
      const counted = { ...none, [scope]: '499' }
      expect(decideApproval(policy, { amount: '1', currency: 'EUR', counted }).needsSecondPerson).toBe(false)
      const decision = decideApproval(policy, { amount: '1.01', currency: 'EUR', counted })
      expect(decision).toMatchObject({ needsSecondPerson: true, limit: '500' })
      expect(decision.why).toContain(`per ${scope}`)
    }
  })

  it('never lets a split of an amount get under the threshold', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 60_000 }), { minLength: 1, maxLength: 20 }), (cents) => {
        // One maker's parts in force alone: each asks with what the earlier ones in force already count.
        let inForce = new Decimal(0)
        for (const part of cents.map((c) => new Decimal(c).div(100))) {
          const decision = decideApproval(policy, {
            amount: part,
            currency: 'EUR',
            counted: { ...none, maker: inForce.toFixed() },
          })
          if (!decision.needsSecondPerson) inForce = inForce.plus(part)
        }
        return inForce.lte(500)
      }),
    )
  })
})

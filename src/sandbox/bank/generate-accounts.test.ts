import { describe, expect, it } from 'vitest'
import { Account } from '../../api-client/index.js'
import { createRandom } from '../random.js'
import { isValidIban } from './bank-numbers.js'
import { generateAccounts } from './generate-accounts.js'

const connection = {
  id: '00000000-0000-4000-8000-00000000000a',
  orgId: 'org_main',
  entityId: '00000000-0000-4000-8000-00000000000b',
  institutionName: 'Harbor National Bank',
  createdAt: new Date('2026-03-02T09:00:00Z'),
}
const bySeed = (seed: number) => generateAccounts(createRandom(seed), connection, '2026-01-01')

describe('generateAccounts', () => {
  it('discovers 2 to 4 accounts that parse as Account, across seeds', () => {
    const counts = new Set<number>()
    for (let seed = 0; seed < 40; seed++) {
      const accounts = bySeed(seed)
      counts.add(accounts.length)
      for (const account of accounts) expect(Account.safeParse(account).success).toBe(true)
    }
    expect([...counts].sort()).toEqual([2, 3, 4])
  })

  it('gives every connection all three payment identifier schemes, every value a string', () => {
    for (let seed = 0; seed < 20; seed++) {
      const identifiers = bySeed(seed).flatMap((a) => a.paymentIdentifiers)
      expect(new Set(identifiers.map((p) => p.scheme))).toEqual(
        new Set(['us_ach', 'uk_sort_code_account_number', 'iban']),
      )
      for (const p of identifiers)
        for (const value of Object.values(p.details)) expect(typeof value).toBe('string')
    }
  })

  it('uses the documented detail names and keeps leading zeros', () => {
    const identifiers = bySeed(3).flatMap((a) => a.paymentIdentifiers)
    const ach = identifiers.find((p) => p.scheme === 'us_ach')!
    expect(Object.keys(ach.details).sort()).toEqual(['accountNumber', 'routingNumber'])
    expect(ach.details.accountNumber).toMatch(/^000\d{7}$/)
    const uk = identifiers.find((p) => p.scheme === 'uk_sort_code_account_number')!
    expect(uk.details).toEqual({
      sortCode: expect.stringMatching(/^0\d{5}$/),
      accountNumber: expect.stringMatching(/^0\d{7}$/),
    })
    for (const p of identifiers.filter((i) => i.scheme === 'iban')) {
      expect(Object.keys(p.details).sort()).toEqual(['bic', 'iban'])
      expect(isValidIban(p.details.iban!)).toBe(true)
    }
  })

  it('keeps the deprecated flat fields null and some balances unexposed', () => {
    const accounts = bySeed(5)
    for (const a of accounts)
      expect([a.accountNumber, a.routingNumber, a.swiftBic]).toEqual([null, null, null])
    expect(accounts.some((a) => !a.exposesBalances)).toBe(true)
    expect(accounts.some((a) => a.exposesBalances)).toBe(true)
  })

  it('is deterministic for a seed', () => {
    expect(bySeed(11)).toEqual(bySeed(11))
    expect(bySeed(11)).not.toEqual(bySeed(12))
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TransactionSort } from '../api-client/index.js'
import type { TransactionRecord } from './state.js'
import { queryTransactions } from './transaction-query.js'

const recordArb = fc.record({
  id: fc.uuid(),
  postedDate: fc.option(
    fc.constantFrom('2026-01-01', '2026-01-02', '2026-01-03').map((d) => d),
    { nil: null },
  ),
  updatedAt: fc.constantFrom('2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z'),
  orgId: fc.constantFrom('org_main', 'org_other'),
  status: fc.constantFrom('pending' as const, 'posted' as const),
  rail: fc.constantFrom('ach' as const, 'wire' as const),
})

const records = fc
  .uniqueArray(recordArb, { selector: (r) => r.id, maxLength: 30 })
  .map((rs) => rs as unknown as TransactionRecord[])

const keyOf = (r: TransactionRecord, sort: TransactionSort) =>
  sort.endsWith('postedDate') ? (r.postedDate ?? null) : r.updatedAt!

describe('queryTransactions', () => {
  for (const sort of ['postedDate', '-postedDate', 'updatedAt', '-updatedAt'] as const) {
    it(`sort ${sort}: ordered by the field (missing last), ties broken by id ascending`, () => {
      fc.assert(
        fc.property(records, (rs) => {
          const out = queryTransactions(rs, { orgId: 'org_main' }, sort)
          for (let i = 1; i < out.length; i++) {
            const a = keyOf(out[i - 1]!, sort)
            const b = keyOf(out[i]!, sort)
            if (a === b) expect(out[i - 1]!.id < out[i]!.id).toBe(true)
            else if (a === null) expect.fail('a transaction without the field comes last')
            else if (b !== null) expect(sort.startsWith('-') ? a > b : a < b).toBe(true)
          }
        }),
      )
    })
  }

  it('keeps exactly the records of the organization that match every filter', () => {
    fc.assert(
      fc.property(records, (rs) => {
        const filter = {
          orgId: 'org_main',
          status: 'posted' as const,
          rail: 'ach' as const,
          postedDateGte: '2026-01-02',
          postedDateLt: '2026-01-03',
        }
        const out = queryTransactions(rs, filter, 'postedDate')
        const expected = rs.filter(
          (r) =>
            r.orgId === 'org_main' &&
            r.status === 'posted' &&
            r.rail === 'ach' &&
            r.postedDate === '2026-01-02',
        )
        expect(new Set(out.map((r) => r.id))).toEqual(new Set(expected.map((r) => r.id)))
      }),
    )
  })
})

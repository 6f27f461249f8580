import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SyncEvent } from '../api-client/index.js'
import { planSyncPage } from './plan-sync-page.js'

const CONNECTION = '11111111-1111-4111-8111-111111111111'
const ACCOUNT = '22222222-2222-4222-8222-222222222222'
let eventSeq = 0
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

function event(type: SyncEvent['type'], n: number, extra: Partial<SyncEvent['transaction']> = {}): SyncEvent {
  return {
    eventId: `ev-${++eventSeq}`,
    eventAt: '2026-03-02T09:00:00.000Z',
    type,
    transaction: { id: id(n), connectionId: CONNECTION, accountId: ACCOUNT, ...extra },
  }
}

describe('planSyncPage', () => {
  it('upserts added and modified transactions and deletes removed ones (rule 3)', () => {
    const plan = planSyncPage([
      event('added', 1, { amount: '10.00', postedDate: '2026-03-01' }),
      event('modified', 2, { amount: '-5.25', postedDate: '2026-02-27' }),
      event('removed', 3),
    ])
    expect(plan.upserts.map((r) => [r.id, r.amount])).toEqual([
      [id(1), '10.00'],
      [id(2), '-5.25'],
    ])
    expect(plan.deletes).toEqual([id(3)])
    expect(plan.earliestPostedDate).toBe('2026-02-27')
  })

  it('lets the later event win when a page names a transaction twice', () => {
    const plan = planSyncPage([event('added', 1, { amount: '1.00' }), event('removed', 1)])
    expect(plan.upserts).toEqual([])
    expect(plan.deletes).toEqual([id(1)])
    const again = planSyncPage([event('removed', 1), event('added', 1, { amount: '2.00' })])
    expect(again.upserts.map((r) => r.amount)).toEqual(['2.00'])
    expect(again.deletes).toEqual([])
  })

  it('names every transaction at most once, whatever the events', () => {
    const events = fc.array(
      fc.record({
        type: fc.constantFrom<SyncEvent['type']>('added', 'modified', 'removed'),
        n: fc.integer({ min: 0, max: 9 }),
      }),
    )
    fc.assert(
      fc.property(events, (list) => {
        const plan = planSyncPage(list.map((e) => event(e.type, e.n)))
        const named = [...plan.upserts.map((r) => r.id), ...plan.deletes]
        expect(new Set(named).size).toBe(named.length)
        expect(new Set(named)).toEqual(new Set(list.map((e) => id(e.n))))
      }),
    )
  })
})

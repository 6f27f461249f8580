import { describe, expect, it } from 'vitest'
import { latestVersions, transactionPhase } from './canonical-order.js'
import type { MatchTransaction } from './types.js'

const tx = (id: string, extra: Partial<MatchTransaction> = {}): MatchTransaction => ({
  id,
  accountId: 'a',
  amount: '1',
  currency: 'EUR',
  status: 'posted',
  ...extra,
})

describe('canonical order', () => {
  it('puts settled before tentative money, then orders by postedDate (undated last) and id', () => {
    const ordered = latestVersions([
      tx('p', { status: 'pending', postedDate: '2024-01-01' }),
      tx('b', { postedDate: '2024-01-02' }),
      tx('c'),
      tx('a', { postedDate: '2024-01-02' }),
      tx('z', { postedDate: '2024-01-01' }),
    ])
    expect(ordered.map((transaction) => transaction.id)).toEqual(['z', 'a', 'b', 'c', 'p'])
  })

  it('keeps one version per id: a removal, else the latest updatedAt', () => {
    const versions = [
      tx('t', { amount: '5', updatedAt: '2024-01-02T00:00:00Z' }),
      tx('t', { amount: '9', updatedAt: '2024-01-01T00:00:00Z' }),
    ]
    expect(latestVersions(versions).map((transaction) => transaction.amount)).toEqual(['5'])
    expect(latestVersions([...versions, { ...tx('t'), removed: true }])[0]?.removed).toBe(true)
  })

  it('gives removed, reversed and cancelled transactions no phase that allocates', () => {
    expect(transactionPhase(tx('a', { status: 'reversed' }))).toBe('inactive')
    expect(transactionPhase(tx('a', { status: 'cancelled' }))).toBe('inactive')
    expect(transactionPhase({ ...tx('a'), removed: true })).toBe('inactive')
    expect(transactionPhase(tx('a', { status: 'unknown' }))).toBe('tentative')
  })
})

import { describe, expect, it } from 'vitest'
import { matchTransferLegs, type MatchTransfer } from './transfer-legs.js'
import type { MatchTransaction } from './types.js'
import { tx } from '../../test/support/match-case-table.js'

const NOW = new Date('2024-03-10T00:00:00Z')
const transfer = (extra: Partial<MatchTransfer> = {}): MatchTransfer => ({
  id: 'tr1',
  clientReference: 'REF-2024-001',
  amount: '500.00',
  currency: 'EUR',
  sourceAccountId: 'src',
  destinationAccountId: 'dst',
  status: 'completed',
  createdAt: '2024-03-01T09:00:00Z',
  completedAt: '2024-03-01T10:00:00Z',
  ...extra,
})
const out = (id: string, extra: Partial<MatchTransaction> = {}) =>
  tx(id, '-500.00', { accountId: 'src', description: 'Transfer ref 2024/001', ...extra })
const into = (id: string, extra: Partial<MatchTransaction> = {}) =>
  tx(id, '500.00', { accountId: 'dst', paymentReference: 'ref2024-0001', ...extra })

type LegCase = {
  name: string
  transfers: MatchTransfer[]
  transactions: MatchTransaction[]
  legs: Record<string, [string | null, string | null]>
  missing: string[]
}

const legCases: LegCase[] = [
  {
    name: 'finds the outflow on the source and the inflow on the destination by normalized reference',
    transfers: [transfer()],
    transactions: [out('o1'), into('i1')],
    legs: { tr1: ['o1', 'i1'] },
    missing: [],
  },
  {
    name: 'a transaction with another amount is not a leg',
    transfers: [transfer()],
    transactions: [out('o1', { amount: '-499.99' }), into('i1')],
    legs: { tr1: [null, 'i1'] },
    missing: ['tr1'],
  },
  {
    name: 'a transaction on another account is not a leg',
    transfers: [transfer()],
    transactions: [out('o1', { accountId: 'elsewhere' }), into('i1', { accountId: 'src' })],
    legs: { tr1: [null, null] },
    missing: ['tr1'],
  },
  {
    name: 'a removed transaction is not a leg',
    transfers: [transfer()],
    transactions: [out('o1'), into('i1', { removed: true })],
    legs: { tr1: ['o1', null] },
    missing: ['tr1'],
  },
  {
    name: 'a completed transfer whose leg is missing inside the window raises nothing yet',
    transfers: [transfer({ completedAt: '2024-03-08T00:00:00Z' })],
    transactions: [out('o1')],
    legs: { tr1: ['o1', null] },
    missing: [],
  },
  {
    name: 'a transfer that is not completed raises nothing',
    transfers: [transfer({ status: 'executing', completedAt: null })],
    transactions: [],
    legs: { tr1: [null, null] },
    missing: [],
  },
  {
    name: 'one transaction is the leg of one transfer only, the oldest first',
    transfers: [transfer({ id: 'tr2', createdAt: '2024-03-02T09:00:00Z' }), transfer()],
    transactions: [out('o1'), into('i1')],
    legs: { tr1: ['o1', 'i1'], tr2: [null, null] },
    missing: ['tr2'],
  },
]

describe('transfer legs, case by case', () => {
  it.each(legCases.map((entry) => [entry.name, entry] as const))('%s', (_, entry) => {
    const result = matchTransferLegs({
      transfers: entry.transfers,
      transactions: entry.transactions,
      now: NOW,
    })
    const legs = Object.fromEntries(
      result.legs.map((leg) => [leg.transferId, [leg.outflowTransactionId, leg.inflowTransactionId]]),
    )
    expect(legs).toEqual(entry.legs)
    expect(result.exceptions.map((exception) => exception.transferId).sort()).toEqual(
      [...entry.missing].sort(),
    )
    for (const exception of result.exceptions) expect(exception.type).toBe('transfer_leg_missing')
  })
})

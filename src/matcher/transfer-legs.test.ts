import { describe, expect, it } from 'vitest'
import { matchConfig } from './config.js'
import { matchTransferLegs, type MatchTransfer } from './transfer-legs.js'

const transfer: MatchTransfer = {
  id: 'tr',
  clientReference: 'PAYROLL MARCH',
  amount: '10.00',
  currency: 'EUR',
  sourceAccountId: 'src',
  destinationAccountId: 'dst',
  status: 'completed',
  createdAt: '2024-03-01T00:00:00Z',
  completedAt: '2024-03-01T00:00:00Z',
}

describe('matchTransferLegs', () => {
  it('raises transfer_leg_missing only once the window has passed, naming the leg it found', () => {
    const transactions = [
      {
        id: 'o',
        accountId: 'src',
        amount: '-10',
        currency: 'EUR',
        status: 'posted' as const,
        description: 'payroll-march',
      },
    ]
    const config = matchConfig({ transferLegWindowSeconds: 3600 })
    const at = (iso: string) =>
      matchTransferLegs({ transfers: [transfer], transactions, now: new Date(iso), config })
    expect(at('2024-03-01T01:00:00Z').exceptions).toEqual([])
    const late = at('2024-03-01T01:00:01Z').exceptions
    expect(late).toMatchObject([
      { type: 'transfer_leg_missing', transferId: 'tr', transactionId: 'o', invoiceIds: [] },
    ])
    expect(late[0]?.reasons.join(' ')).toContain('no inflow on destination account dst')
  })

  it('does not take a leg in another currency', () => {
    const result = matchTransferLegs({
      transfers: [transfer],
      transactions: [
        {
          id: 'i',
          accountId: 'dst',
          amount: '10',
          currency: 'USD',
          status: 'posted',
          paymentReference: 'PAYROLL MARCH',
        },
      ],
      now: new Date('2024-03-01T00:00:00Z'),
    })
    expect(result.legs).toEqual([{ transferId: 'tr', outflowTransactionId: null, inflowTransactionId: null }])
  })
})

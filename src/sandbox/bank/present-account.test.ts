import { describe, expect, it } from 'vitest'
import { Account } from '../../api-client/index.js'
import type { AccountRecord } from '../state.js'
import { presentAccount } from './present-account.js'

const record: AccountRecord = {
  id: '00000000-0000-4000-8000-000000000001',
  connectionId: '00000000-0000-4000-8000-000000000002',
  type: 'checking',
  currency: 'USD',
  name: 'Operating Account',
  status: 'open',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  officialName: 'Business Checking',
  maskedNumber: '****0042',
  accountNumber: null,
  routingNumber: null,
  swiftBic: null,
  paymentIdentifiers: [
    {
      scheme: 'us_ach',
      countryCode: 'US',
      currency: 'USD',
      details: { routingNumber: '011000015', accountNumber: '0000000042' },
    },
  ],
  currentBalance: null,
  availableBalance: null,
  balanceAsOf: null,
  metadata: {},
  orgId: 'org_main',
  entityId: '00000000-0000-4000-8000-000000000003',
  openingBalance: '500.00',
  openingDate: '2026-03-01',
  reportsBalances: true,
  exposesBalances: true,
}
const connection = {
  createdAt: new Date('2026-02-28T12:00:00Z'),
  updatedAt: new Date('2026-03-02T09:30:00Z'),
  lastSyncedAt: new Date('2026-03-02T09:00:00Z'),
}
const lines = [
  {
    status: 'posted' as const,
    postedDate: '2026-03-01',
    amount: '100.00',
    currency: 'USD',
    updatedAt: '2026-03-02T08:00:00.000Z',
  },
  {
    status: 'pending' as const,
    postedDate: '2026-03-02',
    amount: '-30.00',
    currency: 'USD',
    updatedAt: '2026-03-02T09:10:00.000Z',
  },
]

describe('presentAccount', () => {
  it('parses with the Account schema and hides the bank-side fields', () => {
    const account = presentAccount(record, connection, lines, '2026-03-02')
    expect(Account.strict().safeParse(account).success).toBe(true)
    for (const hidden of [
      'orgId',
      'entityId',
      'openingBalance',
      'openingDate',
      'reportsBalances',
      'exposesBalances',
    ]) {
      expect(account).not.toHaveProperty(hidden)
    }
  })

  it('shows the latest ledger balance as current and adds pending lines for available', () => {
    const account = presentAccount(record, connection, lines, '2026-03-02')
    expect(account.currentBalance).toBe('600.00')
    expect(account.availableBalance).toBe('570.00')
  })

  it('stamps balanceAsOf with the latest of the last sync and the last line change, and updatedAt with it', () => {
    const account = presentAccount(record, connection, lines, '2026-03-02')
    expect(account.balanceAsOf).toBe('2026-03-02T09:10:00.000Z')
    expect(account.updatedAt).toBe(account.balanceAsOf)
  })

  it('takes createdAt from the connection (a proxy, per the seed)', () => {
    expect(presentAccount(record, connection, lines, '2026-03-02').createdAt).toBe('2026-02-28T12:00:00.000Z')
  })

  it('shows null balances when the bank does not expose them, and the connection’s updatedAt', () => {
    const account = presentAccount({ ...record, exposesBalances: false }, connection, lines, '2026-03-02')
    expect(account).toMatchObject({ currentBalance: null, availableBalance: null, balanceAsOf: null })
    expect(account.updatedAt).toBe('2026-03-02T09:30:00.000Z')
  })

  it('keeps the deprecated flat fields null', () => {
    const account = presentAccount({ ...record, accountNumber: null }, connection, [], '2026-03-02')
    expect([account.accountNumber, account.routingNumber, account.swiftBic]).toEqual([null, null, null])
  })
})

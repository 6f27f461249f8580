import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listAll } from '../support/ledger-helpers.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

let harness: SandboxHarness
let mine: { connection: any; accounts: any[] }
let second: { connection: any; accounts: any[] }
let theirs: { connection: any; accounts: any[] }
let transferId: string

const usd = (accounts: any[]) => accounts.find((a) => a.currency === 'USD' && a.type === 'checking')
const ids = (items: any[]) => items.map((i) => i.id)
const sortedById = (items: any[]) => [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0 })
  mine = await connectReadyBank(harness)
  second = await connectReadyBank(harness)
  theirs = await connectReadyBank(harness, { key: harness.keyFor('other organization') })
  const transfer = await harness.request('POST', '/v1/transfers', {
    body: {
      type: 'internal',
      amount: { type: 'money', value: '25.00', currency: 'USD' },
      sourceAccountId: usd(mine.accounts).id,
      destination: { type: 'account', accountId: usd(second.accounts).id },
      transferType: 'internal',
      clientReference: 'STATE-1',
    },
  })
  expect(transfer.status).toBe(201)
  transferId = transfer.body.id
  await harness.sandbox.advance(2 * harness.sandbox.ctx.settings.transferStepSeconds)
})
afterAll(() => harness.close())

const state = (query = '') => harness.request('GET', `/_sandbox/state${query}`, { key: null })

describe('GET /_sandbox/state', () => {
  it('with connectionId: its accounts, transactions and transfers exactly as the API shapes them', async () => {
    const id = mine.connection.id
    const response = await state(`?connectionId=${id}`)
    expect(response.status).toBe(200)
    const accounts = await harness.request('GET', `/v1/accounts?connectionId=${id}&limit=500`)
    expect(response.body.accounts).toEqual(sortedById(accounts.body.data))
    expect(response.body.transactions).toEqual(
      sortedById(await listAll(harness, `connectionId=${id}&limit=500`)),
    )
    const transfer = await harness.request('GET', `/v1/transfers/${transferId}`)
    expect(transfer.body.status).toBe('completed')
    expect(response.body.transfers).toEqual([transfer.body])
  })

  it('a transfer shows under both the source and the destination connection', async () => {
    const response = await state(`?connectionId=${second.connection.id}`)
    expect(ids(response.body.transfers)).toEqual([transferId])
  })

  it('without connectionId: every organization, each list sorted by id', async () => {
    const response = await state()
    expect(response.status).toBe(200)
    const accountIds = ids(response.body.accounts)
    for (const account of [...mine.accounts, ...second.accounts, ...theirs.accounts]) {
      expect(accountIds).toContain(account.id)
    }
    const theirTransactions = await listAll(
      harness,
      `connectionId=${theirs.connection.id}&limit=500`,
      harness.keyFor('other organization'),
    )
    expect(theirTransactions.length).toBeGreaterThan(0)
    expect(ids(response.body.transactions)).toEqual(expect.arrayContaining(ids(theirTransactions)))
    for (const list of [response.body.accounts, response.body.transactions, response.body.transfers]) {
      expect(ids(list)).toEqual(ids(sortedById(list)))
    }
  })

  it('400 validation_error for a connectionId that is not a uuid', async () => {
    const response = await state('?connectionId=conn_1')
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe('validation_error')
  })
})

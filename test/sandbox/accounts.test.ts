import { Decimal } from 'decimal.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { Account, PartialAccount, listResponse } from '../../src/api-client/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

let harness: SandboxHarness

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0 })
})
afterAll(() => harness.close())
beforeEach(() => harness.sandbox.reset())

const list = (query = '', key?: string) => harness.request('GET', `/v1/accounts${query}`, { key })
const getOne = (id: string, query = '', key?: string) =>
  harness.request('GET', `/v1/accounts/${id}${query}`, { key })

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status).toBe(status)
  expect(response.body.error).toMatchObject({ code, message: expect.any(String) })
}

describe('GET /v1/accounts', () => {
  it('lists the connection’s accounts in the list envelope, each a valid Account', async () => {
    const { connection } = await connectReadyBank(harness)
    const response = await list(`?connectionId=${connection.id}`)
    expect(response.status).toBe(200)
    const page = listResponse(Account.strict()).parse(response.body)
    expect(page.data.length).toBeGreaterThanOrEqual(2)
    expect(page.data.every((a) => a.connectionId === connection.id && a.status === 'open')).toBe(true)
  })

  it('filters by connectionId, type, currency and status', async () => {
    const one = await connectReadyBank(harness)
    const two = await connectReadyBank(harness)
    const all = (await list()).body.data
    expect(all).toHaveLength(one.accounts.length + two.accounts.length)
    expect((await list(`?connectionId=${two.connection.id}`)).body.data.map((a: any) => a.id)).toEqual(
      two.accounts.map((a) => a.id),
    )
    const gbp = (await list('?currency=GBP')).body.data
    expect(gbp.length).toBe(2)
    expect(gbp.every((a: any) => a.currency === 'GBP')).toBe(true)
    const checking = (await list('?type=checking')).body.data
    expect(checking.length).toBe(all.filter((a: any) => a.type === 'checking').length)
    expect((await list('?status=closed')).body.data).toEqual([])
    expect((await list('?status=open')).body.data).toHaveLength(all.length)
  })

  it('rejects filter values outside their enum or pattern', async () => {
    expectError(await list('?type=brokerage'), 400, 'validation_error')
    expectError(await list('?currency=usd'), 400, 'validation_error')
    expectError(await list('?status=frozen'), 400, 'validation_error')
    expectError(await list('?connectionId=not-a-uuid'), 400, 'validation_error')
  })

  it('pages with limit and cursor bound to the filters', async () => {
    await connectReadyBank(harness)
    await connectReadyBank(harness)
    const all = (await list()).body.data.map((a: any) => a.id)
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: { body: any } = await list(
        `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      seen.push(...page.body.data.map((a: any) => a.id))
      cursor = page.body.pagination.nextCursor
    } while (cursor)
    expect(seen).toEqual(all)
    const first = await list('?limit=1')
    expectError(
      await list(`?limit=1&currency=USD&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`),
      400,
      'invalid_cursor',
    )
    expectError(await list('?limit=0'), 400, 'validation_error')
    expectError(await list('?limit=501'), 400, 'validation_error')
  })

  it('returns only the requested fields plus the identifiers with fields=', async () => {
    await connectReadyBank(harness)
    const response = await list('?fields=currency,currentBalance')
    expect(response.status).toBe(200)
    for (const account of response.body.data) {
      expect(Object.keys(account).sort()).toEqual(['connectionId', 'currency', 'currentBalance', 'id'])
      expect(PartialAccount.safeParse(account).success).toBe(true)
    }
    expectError(await list('?fields=currency,secretSauce'), 400, 'validation_error')
    expectError(await list('?fields=currency,,name'), 400, 'validation_error')
  })
})

describe('GET /v1/accounts/{id}', () => {
  it('returns one account, and honours fields=', async () => {
    const { accounts } = await connectReadyBank(harness)
    const full = await getOne(accounts[0].id)
    expect(full.status).toBe(200)
    expect(full.body).toEqual(accounts[0])
    const partial = await getOne(accounts[0].id, '?fields=name')
    expect(partial.body).toEqual({
      id: accounts[0].id,
      connectionId: accounts[0].connectionId,
      name: accounts[0].name,
    })
  })

  it('answers 404 for an unknown account', async () => {
    expectError(await getOne('00000000-0000-4000-8000-000000000000'), 404, 'not_found')
  })
})

describe('account contents', () => {
  it('carries payment identifiers of all three schemes, every value a string with leading zeros kept', async () => {
    const { accounts } = await connectReadyBank(harness)
    const identifiers = accounts.flatMap((a) => a.paymentIdentifiers)
    expect(new Set(identifiers.map((p: any) => p.scheme))).toEqual(
      new Set(['us_ach', 'uk_sort_code_account_number', 'iban']),
    )
    for (const p of identifiers) {
      expect(p).toEqual({
        scheme: expect.any(String),
        countryCode: expect.stringMatching(/^[A-Z]{2}$/),
        currency: expect.stringMatching(/^[A-Z]{3}$/),
        details: expect.any(Object),
      })
      for (const value of Object.values(p.details)) expect(typeof value).toBe('string')
    }
    const ach = identifiers.find((p: any) => p.scheme === 'us_ach')
    expect(ach.details).toEqual({
      routingNumber: expect.stringMatching(/^\d{9}$/),
      accountNumber: expect.stringMatching(/^000\d{7}$/),
    })
    expect(identifiers.find((p: any) => p.scheme === 'uk_sort_code_account_number').details).toEqual({
      sortCode: expect.stringMatching(/^0\d{5}$/),
      accountNumber: expect.stringMatching(/^0\d{7}$/),
    })
    expect(identifiers.find((p: any) => p.scheme === 'iban').details).toEqual({
      iban: expect.stringMatching(/^[A-Z]{2}\d{2}[A-Z0-9]+$/),
      bic: expect.stringMatching(/^[A-Z0-9]{8}([A-Z0-9]{3})?$/),
    })
  })

  it('keeps the deprecated accountNumber, routingNumber and swiftBic null', async () => {
    const { accounts } = await connectReadyBank(harness)
    for (const a of accounts)
      expect([a.accountNumber, a.routingNumber, a.swiftBic]).toEqual([null, null, null])
  })

  it('shows null balances where the bank does not expose them, with updatedAt from the connection', async () => {
    const { connection, accounts } = await connectReadyBank(harness)
    const hidden = accounts.filter((a) => a.currentBalance === null)
    expect(hidden.length).toBeGreaterThan(0)
    for (const a of hidden) {
      expect(a).toMatchObject({ availableBalance: null, balanceAsOf: null, updatedAt: connection.updatedAt })
    }
  })

  it('takes createdAt from the connection and updatedAt from balanceAsOf when present', async () => {
    const { connection, accounts } = await connectReadyBank(harness)
    for (const a of accounts) {
      expect(a.createdAt).toBe(connection.createdAt)
      if (a.balanceAsOf) expect(a.updatedAt).toBe(a.balanceAsOf)
    }
    expect(accounts.some((a) => a.balanceAsOf === connection.lastSyncedAt)).toBe(true)
  })

  it('shows the latest daily ledger balance as currentBalance and adds pending lines for availableBalance', async () => {
    const { accounts } = await connectReadyBank(harness)
    for (const account of accounts.filter((a) => a.currentBalance !== null)) {
      const latest = (await harness.request('GET', `/v1/balances?accountId=${account.id}&limit=1`)).body
        .data[0]
      expect(account.currentBalance).toBe(latest.ledgerBalance)
      const pending = [...harness.sandbox.ctx.state.transactions.values()]
        .filter((t) => t.accountId === account.id && t.status === 'pending')
        .reduce((sum, t) => sum.plus(t.amount!), new Decimal(0))
      expect(new Decimal(account.availableBalance).equals(pending.plus(account.currentBalance))).toBe(true)
    }
  })
})

describe('scopes and organizations', () => {
  it('needs accounts:read', async () => {
    const { accounts } = await connectReadyBank(harness)
    harness.sandbox.ctx.state.apiKeys.set('sk_test_connections_only', {
      key: 'sk_test_connections_only',
      orgId: 'org_main',
      environment: 'test',
      scopes: ['connections:read'],
      expiresAt: null,
      label: 'connections only',
    })
    expectError(await list('', 'sk_test_connections_only'), 403, 'insufficient_scope')
    expectError(await getOne(accounts[0].id, '', 'sk_test_connections_only'), 403, 'insufficient_scope')
    expect((await list('', harness.keyFor('read only'))).status).toBe(200)
  })

  it('shows another organization none of org_main’s accounts', async () => {
    const other = harness.keyFor('other organization')
    const { connection, accounts } = await connectReadyBank(harness)
    expect((await list('', other)).body.data).toEqual([])
    expect((await list(`?connectionId=${connection.id}`, other)).body.data).toEqual([])
    expectError(await getOne(accounts[0].id, '', other), 404, 'not_found')
  })
})

import { randomUUID } from 'node:crypto'
import { Decimal } from 'decimal.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AccountBalance, listResponse } from '../../src/api-client/index.js'
import { addTransaction, modifyTransaction } from '../../src/sandbox/ledger.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

let harness: SandboxHarness

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0 })
})
afterAll(() => harness.close())
beforeEach(() => harness.sandbox.reset())

const balances = (query = '', key?: string) => harness.request('GET', `/v1/balances${query}`, { key })
const today = () => harness.sandbox.clock.now().toISOString().slice(0, 10)
const state = () => harness.sandbox.ctx.state

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status).toBe(status)
  expect(response.body.error).toMatchObject({ code, message: expect.any(String) })
}

async function allRows(query: string): Promise<any[]> {
  const rows: any[] = []
  let cursor: string | null = null
  do {
    const page: { status: number; body: any } = await balances(
      `?limit=500${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )
    expect(page.status).toBe(200)
    rows.push(...page.body.data)
    cursor = page.body.pagination.nextCursor
  } while (cursor)
  return rows
}

describe('GET /v1/balances', () => {
  it('gives one row per account and day from the account’s opening date to today, each a valid AccountBalance', async () => {
    const { connection, accounts } = await connectReadyBank(harness)
    const response = await balances(`?connectionId=${connection.id}&limit=500`)
    expect(listResponse(AccountBalance.strict()).safeParse(response.body).success).toBe(true)
    const rows = await allRows(`&connectionId=${connection.id}`)
    for (const account of accounts) {
      const own = rows.filter((r) => r.accountId === account.id)
      const record = state().accounts.get(account.id)!
      expect(own.at(-1).date).toBe(record.openingDate)
      expect(own[0].date).toBe(today())
      const days = (Date.parse(today()) - Date.parse(record.openingDate)) / 86_400_000 + 1
      expect(own).toHaveLength(days)
      expect(own.every((r) => r.currency === account.currency && r.entityId === connection.entityId)).toBe(
        true,
      )
    }
  })

  it('orders rows by date descending, then accountId ascending', async () => {
    await connectReadyBank(harness)
    await connectReadyBank(harness)
    const rows = await allRows('')
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]]
      expect(a.date > b.date || (a.date === b.date && a.accountId < b.accountId)).toBe(true)
    }
  })

  it('sums posted amounts of the day as postedTransactionDelta, pending excluded, and the ledger follows the deltas', async () => {
    const { accounts } = await connectReadyBank(harness)
    for (const account of accounts) {
      const rows = (await allRows(`&accountId=${account.id}`)).reverse()
      const lines = [...state().transactions.values()].filter((t) => t.accountId === account.id)
      const record = state().accounts.get(account.id)!
      let ledger = new Decimal(record.openingBalance)
      for (const row of rows) {
        const posted = lines.filter((t) => t.status === 'posted' && t.postedDate === row.date)
        const delta = posted.reduce((sum, t) => sum.plus(t.amount!), new Decimal(0))
        expect(new Decimal(row.postedTransactionDelta).equals(delta)).toBe(true)
        ledger = ledger.plus(delta)
        expect(new Decimal(row.ledgerBalance).equals(ledger)).toBe(true)
      }
    }
  })

  it('leaves a pending line out of every row until it posts, then moves the rows from its date on', async () => {
    const { accounts } = await connectReadyBank(harness)
    const account = accounts[0]
    const before = await allRows(`&accountId=${account.id}`)
    const date = before[3].date
    const line = addTransaction(harness.sandbox.ctx, {
      id: randomUUID(),
      connectionId: account.connectionId,
      accountId: account.id,
      postedDate: date,
      amount: '-123.45',
      currency: account.currency,
      status: 'pending',
      entryType: 'debit',
      rail: 'card',
      description: 'Pending card hold',
    })
    expect(await allRows(`&accountId=${account.id}`)).toEqual(before)
    await harness.sandbox.advance(60)
    modifyTransaction(harness.sandbox.ctx, line.id, { status: 'posted' })
    const after = await allRows(`&accountId=${account.id}`)
    after.forEach((row, i) => {
      const old = before[i]
      if (row.date < date) return expect(row).toEqual(old)
      expect(new Decimal(row.ledgerBalance).minus(old.ledgerBalance).toFixed(2)).toBe('-123.45')
      expect(row.updatedAt).toBe(harness.sandbox.ctx.state.transactions.get(line.id)!.updatedAt)
    })
    const dayRow = after.find((r) => r.date === date)
    expect(
      new Decimal(dayRow.postedTransactionDelta).minus(before[3].postedTransactionDelta).toFixed(2),
    ).toBe('-123.45')
  })

  it('marks rows bank where the bank reports balances and derived where they are computed', async () => {
    const { accounts } = await connectReadyBank(harness)
    const rows = await allRows('')
    for (const account of accounts) {
      const expected = state().accounts.get(account.id)!.reportsBalances ? 'bank' : 'derived'
      expect(rows.filter((r) => r.accountId === account.id).every((r) => r.source === expected)).toBe(true)
    }
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(['bank', 'derived']))
  })

  it('filters by dateGte (inclusive) and dateLt (exclusive)', async () => {
    const { accounts } = await connectReadyBank(harness)
    const rows = await allRows('&dateGte=2026-02-20&dateLt=2026-02-23')
    expect([...new Set(rows.map((r) => r.date))]).toEqual(['2026-02-22', '2026-02-21', '2026-02-20'])
    expect(rows).toHaveLength(3 * accounts.length)
    expectError(await balances('?dateGte=2026-02-30'), 400, 'validation_error')
    expectError(await balances('?dateLt=yesterday'), 400, 'validation_error')
  })

  it('filters by accountId, connectionId and entityId', async () => {
    const one = await connectReadyBank(harness)
    const two = await connectReadyBank(harness)
    const byAccount = await allRows(`&accountId=${one.accounts[0].id}&dateGte=${today()}`)
    expect(byAccount.map((r) => r.accountId)).toEqual([one.accounts[0].id])
    const byConnection = await allRows(`&connectionId=${two.connection.id}&dateGte=${today()}`)
    expect(new Set(byConnection.map((r) => r.accountId))).toEqual(new Set(two.accounts.map((a) => a.id)))
    const byEntity = await allRows(`&entityId=${one.connection.entityId}&dateGte=${today()}`)
    expect(new Set(byEntity.map((r) => r.accountId))).toEqual(new Set(one.accounts.map((a) => a.id)))
    expectError(await balances('?accountId=abc'), 400, 'validation_error')
  })

  it('returns 100 rows by default and accepts limit 1 to 500 only', async () => {
    await connectReadyBank(harness)
    const page = await balances()
    expect(page.body.data).toHaveLength(100)
    expect(page.body.pagination.hasMore).toBe(true)
    expect((await balances('?limit=1')).body.data).toHaveLength(1)
    expect((await balances('?limit=500')).status).toBe(200)
    expectError(await balances('?limit=0'), 400, 'validation_error')
    expectError(await balances('?limit=501'), 400, 'validation_error')
  })

  it('pages through every row once with the cursor', async () => {
    await connectReadyBank(harness)
    const whole = (await balances('?limit=500')).body.data
    const paged: any[] = []
    let cursor: string | null = null
    do {
      const page: { body: any } = await balances(
        `?limit=37${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      paged.push(...page.body.data)
      cursor = page.body.pagination.nextCursor
    } while (cursor)
    expect(whole.length).toBeLessThan(500)
    expect(paged).toEqual(whole)
    expect(new Set(paged.map((r) => `${r.accountId}/${r.date}`)).size).toBe(paged.length)
  })

  it('accepts a cursor only with the same filters', async () => {
    const { connection } = await connectReadyBank(harness)
    const first = await balances(`?limit=5&connectionId=${connection.id}`)
    const cursor = encodeURIComponent(first.body.pagination.nextCursor)
    expect((await balances(`?limit=5&connectionId=${connection.id}&cursor=${cursor}`)).status).toBe(200)
    expectError(await balances(`?limit=5&cursor=${cursor}`), 400, 'invalid_cursor')
    expectError(
      await balances(`?limit=5&connectionId=${connection.id}&dateGte=2026-01-01&cursor=${cursor}`),
      400,
      'invalid_cursor',
    )
    expectError(await balances('?cursor=xyz'), 400, 'invalid_cursor')
  })

  it('re-projects rows after a sync: new days appear and changed rows carry a later updatedAt', async () => {
    const { connection, accounts } = await connectReadyBank(harness)
    const usd = accounts.find((a) => a.currency === 'USD' && a.type === 'checking')
    const before = await allRows(`&accountId=${usd.id}`)
    await harness.sandbox.advance(2 * 86_400)
    expect((await harness.request('PUT', `/v1/connections/${connection.id}/sync`)).status).toBe(202)
    await harness.sandbox.advance(harness.sandbox.ctx.settings.syncDurationSeconds)
    const after = await allRows(`&accountId=${usd.id}`)
    expect(after).toHaveLength(before.length + 2)
    expect(after[0].date).toBe(today())
    const changed = after.filter((row) => {
      const old = before.find((b) => b.date === row.date)
      return old && old.ledgerBalance !== row.ledgerBalance
    })
    for (const row of changed) {
      expect(row.updatedAt > before.find((b) => b.date === row.date).updatedAt).toBe(true)
    }
  })

  it('needs accounts:read and shows another organization nothing', async () => {
    await connectReadyBank(harness)
    expect((await balances('', harness.keyFor('read only'))).status).toBe(200)
    const other = await balances('', harness.keyFor('other organization'))
    expect(other.status).toBe(200)
    expect(other.body.data).toEqual([])
    harness.sandbox.ctx.state.apiKeys.set('sk_test_no_accounts', {
      key: 'sk_test_no_accounts',
      orgId: 'org_main',
      environment: 'test',
      scopes: ['transactions:read'],
      expiresAt: null,
      label: 'no accounts',
    })
    expectError(await balances('', 'sk_test_no_accounts'), 403, 'insufficient_scope')
  })
})

import express from 'express'
import { sql } from 'kysely'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Account, Transaction, listResponse } from '../../src/api-client/index.js'
import { createLogger } from '../../src/observability/index.js'
import { answerApiError, assignRequestId } from '../../src/sidecar/api-error.js'
import { accountRoutes } from '../../src/sidecar/api/accounts.js'
import { balanceProofRoutes } from '../../src/sidecar/api/balance-proof.js'
import { transactionRoutes } from '../../src/sidecar/api/transactions.js'
import type { SidecarContext } from '../../src/sidecar/index.js'
import { upsertTransactions } from '../../src/store/index.js'
import {
  ACCOUNT_A1,
  ACCOUNT_A2,
  ACCOUNT_B1,
  CONNECTION_A,
  CONNECTION_B,
  mirrorRow,
  txId,
  writeMirrorFixture,
} from '../support/mirror-fixture.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'
import { testApiGuard } from '../support/test-auth.js'

const TOKEN = 'mirror-api-token-0123456789'
let database: TestDatabase
let app: express.Express

beforeAll(async () => {
  database = await createTestDatabase('mirror_api')
  await writeMirrorFixture(database.db)
  const context = {
    store: { db: database.db, pool: database.pool },
    logger: createLogger({ level: 'silent', destination: process.stderr }),
  } as unknown as SidecarContext
  // The same pieces as the sidecar's /api mount (src/sidecar/http-app.ts).
  app = express()
  app.use(assignRequestId)
  app.use(
    '/api',
    testApiGuard(database.db, TOKEN),
    transactionRoutes(context),
    accountRoutes(context),
    balanceProofRoutes(context),
  )
  app.use(answerApiError(() => undefined))
})

afterAll(async () => {
  await database?.drop()
})

const get = (path: string) => request(app).get(path).set('authorization', `Bearer ${TOKEN}`)

async function all(path: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const sep = path.includes('?') ? '&' : '?'
    const response = await get(`${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    ids.push(...response.body.data.map((t: { id: string }) => t.id))
    cursor = response.body.pagination.nextCursor
    expect(response.body.pagination.hasMore).toBe(cursor !== null)
    pages++
  } while (cursor)
  return { ids, pages }
}

describe('GET /api/transactions', () => {
  it('answers 401 without the bearer token or with a wrong one', async () => {
    expect((await request(app).get('/api/transactions')).status).toBe(401)
    const wrong = await request(app).get('/api/transactions').set('authorization', 'Bearer nope')
    expect(wrong.status).toBe(401)
    expect(wrong.body.error.code).toBe('unauthorized')
  })

  it("answers with the bank API's list envelope and Transaction shape, amounts exactly as stored", async () => {
    const response = await get(`/api/transactions?connectionId=${CONNECTION_A}`)
    expect(response.status).toBe(200)
    expect(listResponse(Transaction).safeParse(response.body).success).toBe(true)
    expect(response.body.meta.requestId).toEqual(expect.any(String))
    expect(response.body.pagination).toEqual({ hasMore: false, nextCursor: null })
    expect(response.body.data[0]).toEqual({
      id: txId(1),
      connectionId: CONNECTION_A,
      accountId: ACCOUNT_A1,
      postedDate: '2026-03-01',
      updatedAt: '2026-03-01T10:00:00.000Z',
      amount: '10.50',
      currency: 'USD',
      description: 'Payment 1',
      rawDescription: 'RAW 1',
      customerReference: null,
      bankReference: 'BR1',
      paymentReference: 'INV-1',
      baiCode: null,
      category: 'transfer',
      subcategory: null,
      mcc: null,
      merchantName: null,
      counterpartyName: 'ACME',
      counterpartyAccountMasked: null,
      status: 'posted',
      entryType: 'credit',
      rail: 'ach',
    })
    const amounts = response.body.data.map((t: { amount?: string }) => t.amount)
    expect(amounts).toEqual(['10.50', '-1250.00', '0.001', '99.00', '5.00', undefined])
  })

  it('leaves out fields the bank never sent instead of inventing them', async () => {
    const response = await get(`/api/transactions?connectionId=${CONNECTION_A}`)
    const sparse = response.body.data.find((t: { id: string }) => t.id === txId(6))
    expect(sparse).not.toHaveProperty('amount')
    expect(sparse).not.toHaveProperty('updatedAt')
    expect(sparse.postedDate).toBeNull()
  })

  it('pages with opaque keyset cursors through every row once, in id order', async () => {
    const { ids, pages } = await all(`/api/transactions?connectionId=${CONNECTION_A}&limit=2`)
    expect(ids).toEqual([1, 2, 3, 4, 5, 6].map(txId))
    expect(pages).toBe(3)
    const first = await get(`/api/transactions?limit=2`)
    expect(first.body.pagination.nextCursor).toMatch(/^mc_/)
    expect(first.body.pagination.nextCursor).not.toContain(txId(2))
  })

  it('continues after the last row seen even when rows are added before it meanwhile (not an offset)', async () => {
    const b = { connection_id: CONNECTION_B, account_id: ACCOUNT_B1 }
    await upsertTransactions(database.db, [mirrorRow(8, b)])
    const first = await get(`/api/transactions?connectionId=${CONNECTION_B}&limit=1`)
    expect(first.body.data.map((t: { id: string }) => t.id)).toEqual([txId(7)])
    await upsertTransactions(database.db, [mirrorRow(0, b)])
    const cursor = encodeURIComponent(first.body.pagination.nextCursor)
    const next = await get(`/api/transactions?connectionId=${CONNECTION_B}&limit=1&cursor=${cursor}`)
    expect(next.body.data.map((t: { id: string }) => t.id)).toEqual([txId(8)])
  })

  it('filters by account', async () => {
    const { ids } = await all(`/api/transactions?accountId=${ACCOUNT_A2}`)
    expect(ids).toEqual([txId(5)])
  })

  it('refuses a cursor presented with other filters, and a malformed one, naming the cursor', async () => {
    const first = await get(`/api/transactions?connectionId=${CONNECTION_A}&limit=1`)
    const cursor = encodeURIComponent(first.body.pagination.nextCursor)
    const other = await get(
      `/api/transactions?connectionId=${CONNECTION_A}&accountId=${ACCOUNT_A1}&cursor=${cursor}`,
    )
    expect(other.status).toBe(400)
    expect(other.body.error.code).toBe('invalid_cursor')
    expect(other.body.error.details).toEqual([{ path: 'query.cursor', message: expect.any(String) }])
    const malformed = await get(`/api/transactions?cursor=lc_garbage`)
    expect(malformed.status).toBe(400)
    expect(malformed.body.error.code).toBe('invalid_cursor')
  })

  it.each([
    ['limit=0', 'query.limit'],
    ['limit=501', 'query.limit'],
    ['limit=ten', 'query.limit'],
    ['connectionId=conn-1', 'query.connectionId'],
    ['accountId=x', 'query.accountId'],
  ])('answers 400 validation_error naming the parameter for %s', async (query, path) => {
    const response = await get(`/api/transactions?${query}`)
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe('validation_error')
    expect(response.body.error.details.map((d: { path: string }) => d.path)).toEqual([path])
  })

  it('accepts limits 1 and 500 and defaults to 100', async () => {
    await upsertTransactions(
      database.db,
      Array.from({ length: 120 }, (_, i) =>
        mirrorRow(1000 + i, { connection_id: CONNECTION_B, account_id: ACCOUNT_B1 }),
      ),
    )
    expect((await get(`/api/transactions?connectionId=${CONNECTION_B}`)).body.data).toHaveLength(100)
    expect((await get(`/api/transactions?connectionId=${CONNECTION_B}&limit=1`)).body.data).toHaveLength(1)
    expect((await get(`/api/transactions?connectionId=${CONNECTION_B}&limit=500`)).body.data).toHaveLength(
      123,
    )
  })
})

describe('GET /api/accounts', () => {
  it("answers with the bank API's Account shape, filtered by connection and paged by cursor", async () => {
    const response = await get(`/api/accounts?connectionId=${CONNECTION_A}&limit=1`)
    expect(response.status).toBe(200)
    expect(listResponse(Account).safeParse(response.body).success).toBe(true)
    expect(response.body.data[0]).toMatchObject({
      id: ACCOUNT_A1,
      connectionId: CONNECTION_A,
      currency: 'USD',
      currentBalance: '1000.10',
      accountNumber: null,
      balanceAsOf: '2026-03-02T00:00:00.000Z',
      paymentIdentifiers: [
        expect.objectContaining({ details: { routingNumber: '011000015', accountNumber: '0001234' } }),
      ],
    })
    const { ids } = await all(`/api/accounts?connectionId=${CONNECTION_A}&limit=1`)
    expect(ids).toEqual([ACCOUNT_A1, ACCOUNT_A2])
    const everything = await all('/api/accounts')
    expect(everything.ids).toEqual([ACCOUNT_A1, ACCOUNT_A2, ACCOUNT_B1])
  })

  it('answers 401 without the token and 400 for a bad connectionId', async () => {
    expect((await request(app).get('/api/accounts')).status).toBe(401)
    const bad = await get('/api/accounts?connectionId=nope')
    expect(bad.status).toBe(400)
    expect(bad.body.error.details[0].path).toBe('query.connectionId')
  })
})

describe('GET /api/balance-proof', () => {
  it('shows every account and day with its sums, and a summary', async () => {
    const response = await get(`/api/balance-proof?connectionId=${CONNECTION_A}`)
    expect(response.status).toBe(200)
    expect(response.body.summary).toEqual({
      accounts: 2,
      days: 5,
      problemDays: 0,
      awaitingSyncDays: 0,
      ok: true,
    })
    expect(response.body.data.find((d: { date: string }) => d.date === '2026-03-01')).toEqual({
      accountId: ACCOUNT_A1,
      connectionId: CONNECTION_A,
      currency: 'USD',
      date: '2026-03-01',
      mirroredPostedSum: '-1239.50',
      bankDelta: '-1239.50',
      ledgerBalance: '760.50',
      previousLedgerBalance: '2000.00',
      ok: true,
      problem: null,
      problemCodes: [],
      awaitingSync: false,
    })
  })

  it('shows a day that does not add up, and narrows to an account and dates', async () => {
    await upsertTransactions(database.db, [mirrorRow(3, { amount: '0.002', posted_date: '2026-03-02' })])
    const response = await get(
      `/api/balance-proof?accountId=${ACCOUNT_A1}&dateGte=2026-03-02&dateLt=2026-03-03`,
    )
    expect(response.body.summary).toEqual({
      accounts: 1,
      days: 1,
      problemDays: 1,
      awaitingSyncDays: 0,
      ok: false,
    })
    expect(response.body.data[0]).toMatchObject({
      date: '2026-03-02',
      mirroredPostedSum: '0.002',
      bankDelta: '0.001',
      previousLedgerBalance: '760.50',
      ok: false,
      problemCodes: ['posted_sum_mismatch'],
    })
    await upsertTransactions(database.db, [mirrorRow(3, { amount: '0.001', posted_date: '2026-03-02' })])
  })

  it('counts a day whose bank row changed after the newest mirrored change as awaiting the next sync, not a problem', async () => {
    // The bank counted a payment on 03-03 after the newest change the mirror holds (2026-03-01T10:00Z).
    await sql`
      update daily_balances set posted_transaction_delta = 10, updated_at = '2026-03-04T00:00:00Z'
      where account_id = ${ACCOUNT_A1} and date = '2026-03-03'
    `.execute(database.db)
    const response = await get(`/api/balance-proof?accountId=${ACCOUNT_A1}&dateGte=2026-03-03`)
    expect(response.body.summary).toEqual({
      accounts: 1,
      days: 1,
      problemDays: 0,
      awaitingSyncDays: 1,
      ok: true,
    })
    expect(response.body.data[0]).toMatchObject({ date: '2026-03-03', ok: false, awaitingSync: true })
  })

  it('answers 400 naming the parameter for bad dates and 401 without the token', async () => {
    const reversed = await get('/api/balance-proof?dateGte=2026-03-02&dateLt=2026-03-01')
    expect(reversed.status).toBe(400)
    expect(reversed.body.error.details.map((d: { path: string }) => d.path)).toEqual(['query.dateLt'])
    const bad = await get('/api/balance-proof?dateGte=yesterday')
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(['query.dateGte'])
    expect((await request(app).get('/api/balance-proof')).status).toBe(401)
  })
})

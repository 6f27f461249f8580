import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enqueueMatches, upsertTransactions } from '../../src/store/index.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import { createOpenApiValidator } from '../support/openapi-validator.js'
import { API_TOKEN, startTestSidecar } from './sidecar-fixture.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
const openApi = createOpenApiValidator()

async function get(path: string, token: string | null = API_TOKEN) {
  const response = await fetch(`${sidecar.url}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  })
  const body = (await response.json()) as any
  // Every answer, success or refusal, as bankrec's OpenAPI document describes it.
  const contentType = response.headers.get('content-type')
  expect(openApi.check({ method: 'GET', path, status: response.status, contentType, body })).toEqual([])
  return { status: response.status, body }
}

beforeAll(async () => {
  sidecar = await startTestSidecar('payments_api', ['api'])
  for (const [id, number, amount, customerName] of [
    ['inv-a', 'INV-2026-0100', '250.00', 'Globex Corporation'],
    ['inv-b', 'INV-2026-0101', '99.95', 'Initech'],
    ['inv-c', 'INV-2026-0102', '1200.00', 'Globex Corporation'],
  ]) {
    await fetch(`${sidecar.url}/api/invoices/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number, amount, currency: 'EUR', customerName }),
    })
  }
  const { db } = sidecar.context.store
  await upsertTransactions(db, [
    mirrorRow(1, {
      amount: '250.00',
      currency: 'EUR',
      payment_reference: 'INV-2026-0100',
      counterparty_name: 'Globex Corp',
      posted_date: '2026-03-01',
    }),
    mirrorRow(2, {
      amount: '40.00',
      currency: 'EUR',
      payment_reference: 'order 7_1%',
      counterparty_name: 'Initech',
      posted_date: '2026-03-05',
      raw_description: null,
    }),
    mirrorRow(3, {
      amount: '-40.00',
      currency: 'EUR',
      payment_reference: null,
      counterparty_name: 'Landlord',
      posted_date: '2026-03-09',
      entry_type: 'debit',
    }),
  ])
  await enqueueMatches(db, 'transaction', [txId(1), txId(2), txId(3)])
  await sidecar.context.matching.runNow()
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('GET /api/payments', () => {
  it('finds bank lines by amount (either sign), payer, reference and posting days, with what matching made of them', async () => {
    const ids = async (query: string) => (await get(`/api/payments?${query}`)).body.data.map((p: any) => p.id)
    expect(await ids('amount=40')).toEqual([txId(2), txId(3)])
    expect(await ids('payer=globex')).toEqual([txId(1)])
    expect(await ids('reference=7_1%25')).toEqual([txId(2)])
    expect(await ids('reference=7x1')).toEqual([])
    expect(await ids('from=2026-03-02&to=2026-03-09')).toEqual([txId(2), txId(3)])
    const [matched] = (await get('/api/payments?payer=globex')).body.data
    expect(matched).toMatchObject({
      amount: '250.00',
      allocated: '250',
      openException: null,
      postedDate: '2026-03-01',
    })
    const [unmatched] = (await get('/api/payments?payer=initech')).body.data
    expect(unmatched.openException).toMatch(/^unmatched_payment:/)
  })

  it('pages with a cursor bound to its search', async () => {
    const first = await get('/api/payments?amount=40&limit=1')
    expect(first.body.data.map((p: any) => p.id)).toEqual([txId(2)])
    const cursor = encodeURIComponent(first.body.pagination.nextCursor)
    expect(
      (await get(`/api/payments?amount=40&limit=1&cursor=${cursor}`)).body.data.map((p: any) => p.id),
    ).toEqual([txId(3)])
    expect((await get(`/api/payments?amount=41&limit=1&cursor=${cursor}`)).status).toBe(400)
  })

  it('refuses bad input naming it, and a caller without a token', async () => {
    for (const [query, path] of [
      ['amount=12,50', 'query.amount'],
      ['from=2026-02-30', 'query.from'],
      ['from=2026-03-09&to=2026-03-01', 'query.to'],
      ['limit=0', 'query.limit'],
    ]) {
      const answer = await get(`/api/payments?${query}`)
      expect(answer.status, query).toBe(400)
      expect(
        answer.body.error.details.map((d: any) => d.path),
        query,
      ).toContain(path)
    }
    expect((await get('/api/payments', null)).status).toBe(401)
  })
})

describe('GET /api/open-invoices', () => {
  it('finds open invoices by number, customer or amount, and leaves paid ones out', async () => {
    const numbers = async (q: string) =>
      (await get(`/api/open-invoices?q=${encodeURIComponent(q)}`)).body.data.map((i: any) => i.number)
    expect(await numbers('globex')).toEqual(['INV-2026-0102'])
    expect(await numbers('0101')).toEqual(['INV-2026-0101'])
    expect(await numbers('99.95')).toEqual(['INV-2026-0101'])
    expect(await numbers('%')).toEqual([])
    expect((await get('/api/open-invoices?q=')).status).toBe(400)
    expect((await get('/api/open-invoices?q=a&currency=eur')).status).toBe(400)
  })
})

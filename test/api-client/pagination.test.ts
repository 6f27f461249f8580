import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ResponseValidationError, type Account, type Transaction } from '../../src/api-client/index.js'
import { connectReadyBank } from '../support/sandbox-harness.js'
import { startClientHarness, type ClientHarness } from './client-harness.js'

let h: ClientHarness
let ready: { connection: any; accounts: Account[] }

beforeAll(async () => {
  h = await startClientHarness({ sandbox: { scheduledSyncIntervalSeconds: 0 } })
  ready = await connectReadyBank(h.harness)
})
afterAll(() => h.close())

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of iterable) items.push(item)
  return items
}

async function addTransactions(count: number) {
  for (let i = 0; i < count; i++) {
    const answer = await h.harness.request(
      'POST',
      `/_sandbox/connections/${ready.connection.id}/transactions`,
      {
        body: { amount: `${i + 1}.00`, paymentReference: `PAG-${i}` },
      },
    )
    expect(answer.status).toBe(201)
  }
}

describe('list iterators', () => {
  it('listAll yields every transaction exactly once, in the order of one big page', async () => {
    const params = { connectionId: ready.connection.id, sort: 'updatedAt' as const }
    const big = await h.client.transactions.list({ ...params, limit: 500 })
    expect(big.pagination.hasMore).toBe(false)
    expect(big.data.length).toBeGreaterThan(7)
    const all = await collect(h.client.transactions.listAll({ ...params, limit: 7 }))
    expect(all).toEqual(big.data)
  })

  it('listPages yields pages of the requested size, the last one with hasMore false', async () => {
    const total = (await h.client.transactions.list({ connectionId: ready.connection.id, limit: 500 })).data
      .length
    const pages = await collect(
      h.client.transactions.listPages({ connectionId: ready.connection.id, limit: 5 }),
    )
    expect(pages).toHaveLength(Math.ceil(total / 5))
    expect(pages.slice(0, -1).every((p) => p.data.length === 5 && p.pagination.hasMore)).toBe(true)
    expect(pages.at(-1)!.pagination).toEqual({ hasMore: false, nextCursor: null })
  })

  it('listPages starts from a given cursor', async () => {
    const params = { connectionId: ready.connection.id, limit: 4 }
    const first = await h.client.transactions.list(params)
    const rest = await collect(
      h.client.transactions.listAll({ ...params, cursor: first.pagination.nextCursor }),
    )
    const all = await collect(h.client.transactions.listAll(params))
    expect([...first.data, ...rest]).toEqual(all)
  })

  it('stops lazily: breaking out of the loop fetches no further page', async () => {
    const before = h.requests.length
    for await (const transaction of h.client.transactions.listAll({
      connectionId: ready.connection.id,
      limit: 2,
    })) {
      expect(transaction.connectionId).toBe(ready.connection.id)
      break
    }
    expect(h.requests.length - before).toBe(1)
  })

  it('throws ResponseValidationError when a page says hasMore without a nextCursor', async () => {
    const client = h.clientWith({
      fetch: async (input, init) => {
        const response = await fetch(input, init)
        const body = (await response.json()) as Record<string, unknown>
        const broken = { ...body, pagination: { hasMore: true, nextCursor: null } }
        return new Response(JSON.stringify(broken), { status: 200, headers: response.headers })
      },
    })
    const iterate = collect(client.institutions.listPages({ limit: 2 }))
    await expect(iterate).rejects.toBeInstanceOf(ResponseValidationError)
  })
})

describe('transactions.syncPages', () => {
  it('yields pages from the cursor until hasMore is false, covering every change once', async () => {
    const head = await h.client.transactions.sync({ connectionId: ready.connection.id })
    await addTransactions(7)
    const pages = await collect(
      h.client.transactions.syncPages({
        cursor: head.nextCursor,
        connectionId: ready.connection.id,
        limit: 3,
      }),
    )
    expect(pages.map((p) => [p.events.length, p.hasMore])).toEqual([
      [3, true],
      [3, true],
      [1, false],
    ])
    const references = pages.flatMap((p) =>
      p.events.map((e) => (e.transaction as Transaction).paymentReference),
    )
    expect(references).toEqual(['PAG-0', 'PAG-1', 'PAG-2', 'PAG-3', 'PAG-4', 'PAG-5', 'PAG-6'])
    expect(pages.flatMap((p) => p.events.map((e) => e.type))).toEqual(Array(7).fill('added'))
  })

  it('without a cursor yields one page: the stream head', async () => {
    const pages = await collect(h.client.transactions.syncPages({ connectionId: ready.connection.id }))
    expect(pages).toHaveLength(1)
    expect(pages[0]).toMatchObject({ events: [], hasMore: false })
  })

  it('resuming from the last nextCursor yields only later changes', async () => {
    const head = await h.client.transactions.sync({ connectionId: ready.connection.id })
    await addTransactions(2)
    const first = await collect(
      h.client.transactions.syncPages({ cursor: head.nextCursor, connectionId: ready.connection.id }),
    )
    const resumeAt = first.at(-1)!.nextCursor
    await addTransactions(1)
    const second = await collect(
      h.client.transactions.syncPages({ cursor: resumeAt, connectionId: ready.connection.id }),
    )
    expect(
      second.flatMap((p) => p.events.map((e) => (e.transaction as Transaction).paymentReference)),
    ).toEqual(['PAG-0'])
  })
})

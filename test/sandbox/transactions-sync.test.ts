import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SyncResponse } from '../../src/api-client/index.js'
import { bankReports, drain, listAll, streamHead, sync } from '../support/ledger-helpers.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

let harness: SandboxHarness
let connectionId: string
let accountIds: string[]

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0 })
  const bank = await connectReadyBank(harness)
  connectionId = bank.connection.id
  accountIds = bank.accounts.map((a) => a.id)
})
afterAll(() => harness.close())

const onConnection = () => `&connectionId=${connectionId}`
const patch = (id: string, body: Record<string, unknown>) =>
  harness.request('PATCH', `/_sandbox/transactions/${id}`, { key: null, body })
const remove = (id: string) => harness.request('DELETE', `/_sandbox/transactions/${id}`, { key: null })
const from = (cursor: string, query = onConnection()) =>
  sync(harness, `cursor=${encodeURIComponent(cursor)}${query}`)

/** The bank's truth for the connection, in API shape. */
async function truth(): Promise<Map<string, any>> {
  const state = await harness.request('GET', `/_sandbox/state?connectionId=${connectionId}`, { key: null })
  return new Map(state.body.transactions.map((t: any) => [t.id, t]))
}

describe('GET /v1/transactions/sync', () => {
  it('rule 5: the first call without a cursor returns no events, hasMore false and the stream head', async () => {
    const response = await sync(harness, onConnection().slice(1))
    expect(response.status).toBe(200)
    expect(SyncResponse.safeParse(response.body).success).toBe(true)
    expect(response.body).toMatchObject({ events: [], hasMore: false })
    expect(response.body.nextCursor).toMatch(/^sc_/)
    // The history before the head is the list endpoint's job: polling the head shows none of it.
    const next = await from(response.body.nextCursor)
    expect(next.body.events).toEqual([])
  })

  it('rule 1: events are ordered by the server sync position, not by postedDate or updatedAt', async () => {
    const old = (await listAll(harness, `connectionId=${connectionId}&sort=postedDate&limit=500`))[0]
    const cursor = await streamHead(harness, onConnection().slice(1))
    const first = await bankReports(harness, connectionId, { amount: '1.00', postedDate: '2026-03-01' })
    await harness.sandbox.advance(1)
    const second = await bankReports(harness, connectionId, { amount: '2.00', postedDate: '2020-01-01' })
    await harness.sandbox.advance(1)
    expect((await patch(old.id, { description: 'touched' })).status).toBe(200)
    const response = await from(cursor)
    expect(response.body.events.map((e: any) => e.transaction.id)).toEqual([first.id, second.id, old.id])
  })

  it('rule 2: a reused cursor returns the then-current ordered suffix, not a replay log', async () => {
    const cursor = await streamHead(harness, onConnection().slice(1))
    const a = await bankReports(harness, connectionId, { amount: '5.00' })
    const b = await bankReports(harness, connectionId, { amount: '6.00' })
    const before = await from(cursor)
    expect(before.body.events.map((e: any) => [e.transaction.id, e.transaction.amount])).toEqual([
      [a.id, '5.00'],
      [b.id, '6.00'],
    ])
    await patch(a.id, { amount: '7.00' })
    const after = await from(cursor)
    expect(after.body.events.map((e: any) => [e.type, e.transaction.id, e.transaction.amount])).toEqual([
      ['added', b.id, '6.00'],
      ['added', a.id, '7.00'],
    ])
    expect(after.body.events[0].eventId).toBe(before.body.events[1].eventId)
    expect(after.body.events[1].eventId).not.toBe(before.body.events[0].eventId)
  })

  it('rule 3: event kinds in the type field: added, modified (existing before the cursor), removed', async () => {
    const existing = await bankReports(harness, connectionId, { amount: '8.00' })
    const doomed = await bankReports(harness, connectionId, { amount: '9.00' })
    const cursor = await streamHead(harness, onConnection().slice(1))
    const fresh = await bankReports(harness, connectionId, { amount: '10.00' })
    await patch(existing.id, { status: 'posted', amount: '8.50' })
    await remove(doomed.id)
    const { events } = (await from(cursor)).body
    expect(events.map((e: any) => [e.type, e.transaction.id])).toEqual([
      ['added', fresh.id],
      ['modified', existing.id],
      ['removed', doomed.id],
    ])
    expect(events[1].transaction).toMatchObject({ amount: '8.50' })
    for (const event of events) {
      expect(event.eventId).toMatch(/^sev_/)
      expect(Date.parse(event.eventAt)).not.toBeNaN()
    }
  })

  it('rule 3: a removed event embeds only id, connectionId and accountId', async () => {
    const doomed = await bankReports(harness, connectionId, { amount: '11.00' })
    const cursor = await streamHead(harness, onConnection().slice(1))
    await remove(doomed.id)
    const { events } = (await from(cursor)).body
    expect(events).toEqual([
      {
        eventId: expect.any(String),
        eventAt: harness.sandbox.clock.now().toISOString(),
        type: 'removed',
        transaction: { id: doomed.id, connectionId, accountId: doomed.accountId },
      },
    ])
  })

  it('rule 4: a transaction added after the cursor and removed before the read shows as removed', async () => {
    const cursor = await streamHead(harness, onConnection().slice(1))
    const brief = await bankReports(harness, connectionId, { amount: '12.00' })
    await remove(brief.id)
    const { events } = (await from(cursor)).body
    expect(events.map((e: any) => [e.type, e.transaction.id])).toEqual([['removed', brief.id]])
  })

  it('rule 4: deleting the connection shows every transaction of it as removed', async () => {
    const doomed = await connectReadyBank(harness)
    const id = doomed.connection.id
    const cursor = await streamHead(harness, `connectionId=${id}`)
    const before = await listAll(harness, `connectionId=${id}&limit=500`)
    expect(before.length).toBeGreaterThan(0)
    const deleted = await harness.request('DELETE', `/v1/connections/${id}`)
    expect(deleted.status).toBeLessThan(300)
    const mirror = new Map(before.map((t) => [t.id, t]))
    const { events } = await drain(harness, cursor, mirror, `&connectionId=${id}`)
    expect(events.every((e) => e.type === 'removed')).toBe(true)
    expect(mirror.size).toBe(0)
  })

  it('rule 5: no-gap bootstrap (head, list backfill, poll) yields an exact mirror despite concurrent changes', async () => {
    const cursor = await streamHead(harness, onConnection().slice(1))
    const duringBackfill = await bankReports(harness, connectionId, { amount: '13.00' })
    const mirror = new Map(
      (await listAll(harness, `connectionId=${connectionId}&limit=7`)).map((t) => [t.id, t]),
    )
    const victim = [...mirror.keys()].find((id) => id !== duringBackfill.id)!
    await remove(victim)
    await patch(duringBackfill.id, { amount: '13.50' })
    await bankReports(harness, connectionId, { amount: '14.00', accountId: accountIds.at(-1) })
    const { cursor: next } = await drain(harness, cursor, mirror, onConnection())
    expect(mirror).toEqual(await truth())
    await bankReports(harness, connectionId, { amount: '15.00' })
    await drain(harness, next, mirror, onConnection())
    expect(mirror).toEqual(await truth())
  })

  it('rule 5: while hasMore is true the next call with the returned nextCursor continues the stream', async () => {
    const cursor = await streamHead(harness, onConnection().slice(1))
    const made = []
    for (let i = 0; i < 3; i++)
      made.push(await bankReports(harness, connectionId, { amount: `${20 + i}.00` }))
    const first = await from(cursor, `${onConnection()}&limit=2`)
    expect(first.body.hasMore).toBe(true)
    expect(first.body.events).toHaveLength(2)
    const second = await from(first.body.nextCursor, `${onConnection()}&limit=2`)
    expect(second.body.hasMore).toBe(false)
    expect([...first.body.events, ...second.body.events].map((e: any) => e.transaction.id)).toEqual(
      made.map((t) => t.id),
    )
  })

  it('rule 6: a retried call with the same cursor gets the same page', async () => {
    const cursor = await streamHead(harness, onConnection().slice(1))
    await bankReports(harness, connectionId, { amount: '30.00' })
    const first = await from(cursor)
    const retried = await from(cursor)
    expect(retried.body.events).toEqual(first.body.events)
    expect(retried.body.hasMore).toBe(first.body.hasMore)
  })

  it('rule 7: every event carries transaction.id and stable eventIds, so re-applying a page is safe', async () => {
    const cursor = await streamHead(harness, onConnection().slice(1))
    const t = await bankReports(harness, connectionId, { amount: '31.00' })
    await patch(t.id, { amount: '32.00' })
    const page = await from(cursor, `${onConnection()}&fields=amount`)
    const mirror = new Map<string, any>()
    for (let round = 0; round < 2; round++) {
      for (const event of page.body.events) mirror.set(event.transaction.id, event.transaction)
    }
    expect([...mirror.values()]).toEqual([
      { id: t.id, connectionId, accountId: t.accountId, amount: '32.00' },
    ])
    expect((await from(cursor)).body.events.map((e: any) => e.eventId)).toEqual(
      page.body.events.map((e: any) => e.eventId),
    )
  })

  it('limit caps the events; 0 and 501 are validation errors', async () => {
    const cursor = await streamHead(harness, onConnection().slice(1))
    await bankReports(harness, connectionId, { amount: '40.00' })
    await bankReports(harness, connectionId, { amount: '41.00' })
    const one = await from(cursor, `${onConnection()}&limit=1`)
    expect(one.body.events).toHaveLength(1)
    expect(one.body.hasMore).toBe(true)
    for (const limit of [0, 501]) {
      const response = await from(cursor, `${onConnection()}&limit=${limit}`)
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('validation_error')
    }
    expect((await from(cursor, `${onConnection()}&limit=500`)).status).toBe(200)
  })

  it('fields applies to embedded transactions and never changes stream membership', async () => {
    const cursor = await streamHead(harness, onConnection().slice(1))
    await bankReports(harness, connectionId, { amount: '42.00' })
    const gone = await bankReports(harness, connectionId, { amount: '43.00' })
    await remove(gone.id)
    const full = await from(cursor)
    const sparse = await from(cursor, `${onConnection()}&fields=postedDate`)
    expect(sparse.body.events.map((e: any) => [e.type, e.eventId])).toEqual(
      full.body.events.map((e: any) => [e.type, e.eventId]),
    )
    expect(Object.keys(sparse.body.events[0].transaction).sort()).toEqual([
      'accountId',
      'connectionId',
      'id',
      'postedDate',
    ])
    const unknown = await from(cursor, `${onConnection()}&fields=secret`)
    expect(unknown.status).toBe(400)
  })

  it('filter accountId defines the stream: only that account', async () => {
    const [first, second] = accountIds
    const cursor = await streamHead(harness, `accountId=${first}`)
    const mine = await bankReports(harness, connectionId, { amount: '44.00', accountId: first })
    await bankReports(harness, connectionId, { amount: '45.00', accountId: second })
    const response = await sync(harness, `cursor=${encodeURIComponent(cursor)}&accountId=${first}`)
    expect(response.body.events.map((e: any) => e.transaction.id)).toEqual([mine.id])
  })

  it('filter connectionId defines the stream: only that connection', async () => {
    const other = await connectReadyBank(harness)
    const cursor = await streamHead(harness, onConnection().slice(1))
    const mine = await bankReports(harness, connectionId, { amount: '46.00' })
    await bankReports(harness, other.connection.id, { amount: '47.00' })
    expect((await from(cursor)).body.events.map((e: any) => e.transaction.id)).toEqual([mine.id])
  })

  describe('invalid_cursor (400)', () => {
    it('a malformed cursor', async () => {
      for (const cursor of ['garbage', 'sc_e30.AAAA', 'sc_']) {
        const response = await from(cursor)
        expect(response.status, cursor).toBe(400)
        expect(response.body.error.code).toBe('invalid_cursor')
      }
    })

    it('an edited cursor', async () => {
      const cursor = await streamHead(harness, onConnection().slice(1))
      const [body, mac] = cursor.slice(3).split('.') as [string, string]
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString())
      const edited = `sc_${Buffer.from(JSON.stringify({ ...payload, s: 0 })).toString('base64url')}.${mac}`
      const response = await from(edited)
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('invalid_cursor')
    })

    it('a cursor used with a different accountId or connectionId filter', async () => {
      const cursor = await streamHead(harness, onConnection().slice(1))
      for (const query of [
        '',
        `&accountId=${accountIds[0]}`,
        `${onConnection()}&accountId=${accountIds[0]}`,
      ]) {
        const response = await from(cursor, query)
        expect(response.status, query).toBe(400)
        expect(response.body.error.code).toBe('invalid_cursor')
      }
    })

    it('a list cursor used for sync', async () => {
      const list = await harness.request('GET', `/v1/transactions?limit=1`)
      const response = await from(list.body.pagination.nextCursor, '')
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('invalid_cursor')
    })

    it("another organization's cursor", async () => {
      const cursor = await streamHead(harness)
      const response = await sync(
        harness,
        `cursor=${encodeURIComponent(cursor)}`,
        harness.keyFor('other organization'),
      )
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('invalid_cursor')
    })
  })

  it('organization isolation: a stream shows only the key’s organization', async () => {
    const other = harness.keyFor('other organization')
    const cursor = await streamHead(harness, '', other)
    await bankReports(harness, connectionId, { amount: '48.00' })
    const response = await sync(harness, `cursor=${encodeURIComponent(cursor)}`, other)
    expect(response.status).toBe(200)
    expect(response.body.events).toEqual([])
  })
})

describe('cursor expiry', () => {
  it('cursor_expired (410): a cursor is valid until 90 days after it was issued, not a second longer', async () => {
    const local = await startSandbox({ scheduledSyncIntervalSeconds: 0 })
    try {
      const bank = await connectReadyBank(local)
      const query = `connectionId=${bank.connection.id}`
      const cursor = await streamHead(local, query)
      await local.sandbox.advance(90 * 86400)
      const atLimit = await sync(local, `cursor=${encodeURIComponent(cursor)}&${query}`)
      expect(atLimit.status).toBe(200)
      // A fresh nextCursor restarts the 90 days: a client that keeps polling never expires.
      const renewed = atLimit.body.nextCursor
      await local.sandbox.advance(1)
      const expired = await sync(local, `cursor=${encodeURIComponent(cursor)}&${query}`)
      expect(expired.status).toBe(410)
      expect(expired.body.error.code).toBe('cursor_expired')
      const stillValid = await sync(local, `cursor=${encodeURIComponent(renewed)}&${query}`)
      expect(stillValid.status).toBe(200)
    } finally {
      await local.close()
    }
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BankCursorExpiredError,
  BankInvalidCursorError,
  createBankClient,
} from '../../src/api-client/index.js'
import type { SyncQuarantineIncident } from '../../src/alerts/index.js'
import { runConnectionSync, type CarriedStream, type ConnectionSyncDeps } from '../../src/sync/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let harness: SandboxHarness
let database: TestDatabase
let connectionId: string
let accountId: string
/** Rewrites the events of sync pages on their way from the bank, as a service speaking another dialect would. */
let rewrite: ((events: any[]) => any[]) | null = null
const alerted: SyncQuarantineIncident[][] = []

async function rewritingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init)
  if (!rewrite || !String(input).includes('/v1/transactions/sync') || response.status !== 200) return response
  const body = (await response.json()) as { events: any[] }
  body.events = rewrite(body.events)
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
}

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0, generatedActivity: false })
  database = await createTestDatabase('sync_quarantine')
  const bank = await connectReadyBank(harness)
  connectionId = bank.connection.id
  accountId = bank.accounts[0].id
})
afterAll(async () => {
  await harness?.close()
  await database?.drop()
})

function deps(overrides: Partial<ConnectionSyncDeps> = {}): ConnectionSyncDeps {
  const client = createBankClient({ baseUrl: harness.url, apiKey: harness.apiKey, fetch: rewritingFetch })
  return {
    db: database.db,
    client,
    clock: harness.sandbox.clock,
    pageSize: 3,
    isCursorExpired: (e) => e instanceof BankCursorExpiredError,
    isCursorInvalid: (e) => e instanceof BankInvalidCursorError,
    onQuarantineProblems: (_id, incidents) => void alerted.push(incidents),
    ...overrides,
  }
}

const add = async (amount: string) =>
  (
    await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
      body: { accountId, amount },
    })
  ).body.id as string

async function mirror(): Promise<Map<string, string | null>> {
  const rows = await database.db
    .selectFrom('transactions')
    .select(['id', 'description'])
    .where('connection_id', '=', connectionId)
    .execute()
  return new Map(rows.map((r) => [r.id, r.description]))
}

async function truth(): Promise<Map<string, string | null>> {
  const state = await harness.request('GET', `/_sandbox/state?connectionId=${connectionId}`)
  return new Map((state.body.transactions as any[]).map((t) => [t.id, t.description ?? null]))
}

const quarantine = () =>
  database.db
    .selectFrom('sync_quarantine')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .orderBy('id')
    .execute()
const exception = (problem: string) =>
  database.db
    .selectFrom('match_exceptions')
    .selectAll()
    .where('key', '=', `sync_event:${problem}`)
    .executeTakeFirst()
const streamCursor = async () =>
  (
    await database.db
      .selectFrom('sync_streams')
      .select('cursor')
      .where('connection_id', '=', connectionId)
      .executeTakeFirst()
  )?.cursor

describe('sync events that fit no dialect', () => {
  it('are quarantined with their page while the rest of the page and later pages apply', async () => {
    await runConnectionSync(deps(), connectionId)
    const kept = await add('10.00')
    const odd = await add('20.00')
    const later = await Promise.all(['30.00', '40.00', '50.00', '60.00'].map(add))
    await harness.request('PATCH', `/_sandbox/transactions/${odd}`, {
      body: { description: 'Split at the bank' },
    })
    rewrite = (events) => events.map((e) => (e.transaction?.id === odd ? { ...e, type: 'split' } : e))
    const cursorBefore = await streamCursor()

    const result = await runConnectionSync(deps(), connectionId)
    expect(result.quarantined).toBe(1)
    expect(result.pagesApplied).toBeGreaterThan(1)
    expect(await streamCursor()).not.toBe(cursorBefore)
    const mirrored = await mirror()
    for (const id of [kept, ...later]) expect(mirrored.has(id)).toBe(true)
    expect(mirrored.get(odd) ?? null).not.toBe('Split at the bank')

    const rows = await quarantine()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ problem: 'unknown_kind', transaction_id: odd, resolved_at: null })
    expect(JSON.parse(rows[0]!.raw)).toMatchObject({ type: 'split', transaction: { id: odd } })
    expect(rows[0]!.detail).toContain('type="split"')
    expect(await exception('unknown_kind')).toMatchObject({
      type: 'unreadable_sync_event',
      resolved_at: null,
    })
    expect(alerted.map((a) => a.map((i) => i.problem))).toEqual([['unknown_kind']])
  })

  it('alert once per kind of problem: a second event of the same kind opens nothing new', async () => {
    const another = await add('70.00')
    rewrite = (events) => events.map((e) => (e.transaction?.id === another ? { ...e, type: 'split' } : e))
    const result = await runConnectionSync(deps(), connectionId)
    expect(result.quarantined).toBe(1)
    // The first one was settled at the start of this run (next test); the new one waits.
    expect((await quarantine()).map((r) => [r.transaction_id, r.resolution])).toEqual([
      [expect.any(String), 'refetched'],
      [another, null],
    ])
    expect(await exception('unknown_kind')).toMatchObject({ resolved_at: null, times_opened: 2 })
    expect(alerted).toHaveLength(1)
  })

  it('are settled by the next sync, which re-reads the transactions they name from the bank', async () => {
    const gone = await add('80.00')
    rewrite = (events) => events.map((e) => (e.transaction?.id === gone ? { ...e, type: 'vanished' } : e))
    await runConnectionSync(deps(), connectionId)
    expect(await quarantine()).toHaveLength(3)
    // The bank deletes it; the quarantined event was the only news of it the mirror had.
    await harness.request('DELETE', `/_sandbox/transactions/${gone}`)
    rewrite = (events) => events.filter((e) => e.transaction?.id !== gone)

    const result = await runConnectionSync(deps(), connectionId)
    expect(result.quarantineSettled).toBe(1)
    expect(await mirror()).toEqual(await truth())
    expect((await quarantine()).map((r) => r.resolution)).toEqual(['refetched', 'refetched', 'deleted'])
    expect((await exception('unknown_kind'))?.resolved_at).not.toBeNull()
  })

  it('one naming no transaction waits for the stream to restart, whose backfill covers it', async () => {
    await add('90.00')
    rewrite = (events) => events.map(({ transaction: _t, ...rest }) => ({ ...rest, type: 'added' }))
    await runConnectionSync(deps(), connectionId)
    expect((await quarantine()).filter((r) => r.resolved_at === null)).toMatchObject([
      { problem: 'no_transaction', transaction_id: null },
    ])
    rewrite = null
    await runConnectionSync(deps(), connectionId)
    expect((await quarantine()).filter((r) => r.resolved_at === null)).toHaveLength(1)
    expect(await exception('no_transaction')).toMatchObject({ resolved_at: null })

    await database.db.deleteFrom('sync_streams').where('connection_id', '=', connectionId).execute()
    const result = await runConnectionSync(deps(), connectionId)
    expect(result.bootstrapped).toBe(true)
    expect((await quarantine()).filter((r) => r.resolved_at === null)).toEqual([])
    expect(await mirror()).toEqual(await truth())
    expect((await exception('no_transaction'))?.resolved_at).not.toBeNull()
  })

  it('records the dialect of the stream once, when it is found', async () => {
    const found: string[] = []
    await harness.request('PUT', '/_sandbox/dialect', { body: { name: 'shouting' } })
    const victim = await add('5.00')
    await add('6.00')
    await harness.request('DELETE', `/_sandbox/transactions/${victim}`)
    await runConnectionSync(
      deps({ onDialect: (_id, d) => void found.push(d.kindField + '/' + d.removed) }),
      connectionId,
    )
    await add('7.00')
    await runConnectionSync(deps({ onDialect: (_id, d) => void found.push(d.kindField) }), connectionId)
    expect(found).toEqual(['changeType/transaction with only id'])
    expect(await mirror()).toEqual(await truth())
    await harness.request('PUT', '/_sandbox/dialect', { body: { name: 'seed' } })
  })

  it('a run carrying the stream from the run before settles what that run quarantined', async () => {
    // As the sync loop does under its lock: no run reads the stream again, each starts where the last left it.
    const carried: CarriedStream = {}
    await runConnectionSync(deps(), connectionId, carried)
    const odd = await add('11.00')
    rewrite = (events) => events.map((e) => (e.transaction?.id === odd ? { ...e, type: 'split' } : e))
    expect((await runConnectionSync(deps(), connectionId, carried)).quarantined).toBe(1)
    rewrite = null
    const result = await runConnectionSync(deps(), connectionId, carried)
    expect(result.quarantineSettled).toBe(1)
    expect((await quarantine()).find((row) => row.transaction_id === odd)?.resolution).toBe('refetched')
    expect(await mirror()).toEqual(await truth())
  })
})

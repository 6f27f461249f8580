import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BankCursorExpiredError,
  BankInvalidCursorError,
  createBankClient,
  type BankClient,
} from '../../src/api-client/index.js'
import { ConcurrentSyncError, runConnectionSync, type ConnectionSyncDeps } from '../../src/sync/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let harness: SandboxHarness
let database: TestDatabase
let client: BankClient
let connectionId: string
let accountId: string

beforeAll(async () => {
  harness = await startSandbox()
  database = await createTestDatabase('connection_sync')
  client = createBankClient({ baseUrl: harness.url, apiKey: harness.apiKey })
  const { connection, accounts } = await connectReadyBank(harness)
  connectionId = connection.id
  accountId = accounts[0].id
})

afterAll(async () => {
  await harness?.close()
  await database?.drop()
})

function deps(overrides: Partial<ConnectionSyncDeps> = {}): ConnectionSyncDeps {
  return {
    db: database.db,
    client,
    clock: harness.sandbox.clock,
    pageSize: 50,
    isCursorExpired: (e) => e instanceof BankCursorExpiredError,
    isCursorInvalid: (e) => e instanceof BankInvalidCursorError,
    ...overrides,
  }
}

/** The mirror and the bank's truth, as comparable rows. */
async function mirrorAndTruth() {
  const truth = await harness.request('GET', `/_sandbox/state?connectionId=${connectionId}`)
  const expected = (truth.body.transactions as any[])
    .map((t) => ({
      id: t.id,
      amount: t.amount,
      status: t.status,
      postedDate: t.postedDate,
      paymentReference: t.paymentReference,
    }))
    .sort((a, b) => a.id.localeCompare(b.id))
  const rows = await database.db
    .selectFrom('transactions')
    .select(['id', 'amount', 'status', 'posted_date', 'payment_reference'])
    .where('connection_id', '=', connectionId)
    .orderBy('id')
    .execute()
  const actual = rows.map((r) => ({
    id: r.id,
    amount: r.amount,
    status: r.status,
    postedDate: r.posted_date,
    paymentReference: r.payment_reference,
  }))
  // NUMERIC comes back normalised; compare amounts as exact decimals.
  return {
    actual: actual.map((r) => ({ ...r, amount: r.amount === null ? null : normalise(r.amount) })),
    expected: expected.map((r) => ({ ...r, amount: normalise(r.amount) })),
  }
}

function normalise(amount: string): string {
  return amount
    .replace(/^(-?)0+(?=\d)/, '$1')
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '')
}

describe('connection sync', () => {
  it('bootstraps a new stream without gaps: head, list backfill, then the stream (rule 5)', async () => {
    const result = await runConnectionSync(deps(), connectionId)
    expect(result.bootstrapped).toBe(true)
    const { actual, expected } = await mirrorAndTruth()
    expect(expected.length).toBeGreaterThan(0)
    expect(actual).toEqual(expected)
  })

  it('applies added, modified and removed events so the mirror equals the bank (rules 3 and 7)', async () => {
    const added = await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
      body: { accountId, amount: '1250.00', paymentReference: 'INV-1001', status: 'pending' },
    })
    expect(added.status).toBe(201)
    const truthBefore = await harness.request('GET', `/_sandbox/state?connectionId=${connectionId}`)
    const victim = (truthBefore.body.transactions as any[]).find((t) => t.id !== added.body.id)
    await harness.request('PATCH', `/_sandbox/transactions/${added.body.id}`, { body: { status: 'posted' } })
    await harness.request('DELETE', `/_sandbox/transactions/${victim.id}`)

    const result = await runConnectionSync(deps(), connectionId)
    expect(result.bootstrapped).toBe(false)
    const { actual, expected } = await mirrorAndTruth()
    expect(actual).toEqual(expected)
    expect(actual.find((r) => r.id === added.body.id)?.status).toBe('posted')
    expect(actual.find((r) => r.id === victim.id)).toBeUndefined()
  })

  it('changes nothing when run again with no new events', async () => {
    const before = await mirrorAndTruth()
    const result = await runConnectionSync(deps(), connectionId)
    expect(result.upserted).toBe(0)
    expect((await mirrorAndTruth()).actual).toEqual(before.actual)
  })

  it('rebootstraps after cursor_expired and deletes rows the backfill no longer shows', async () => {
    const rejected: string[] = []
    const truth = await harness.request('GET', `/_sandbox/state?connectionId=${connectionId}`)
    const gone = (truth.body.transactions as any[])[0]
    await harness.sandbox.advance(91 * 86400)
    await harness.request('DELETE', `/_sandbox/transactions/${gone.id}`)
    const result = await runConnectionSync(
      deps({ onCursorRejected: (kind) => void rejected.push(kind) }),
      connectionId,
    )
    expect(rejected).toEqual(['expired'])
    expect(result.bootstrapped).toBe(true)
    const { actual, expected } = await mirrorAndTruth()
    expect(actual).toEqual(expected)
    expect(actual.find((r) => r.id === gone.id)).toBeUndefined()
  })

  it('never applies the same page twice when two runs race on one connection', async () => {
    for (let i = 0; i < 30; i++) {
      await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
        body: { accountId, amount: `${i + 1}.00` },
      })
    }
    const outcomes = await Promise.allSettled([
      runConnectionSync(deps({ pageSize: 5 }), connectionId),
      runConnectionSync(deps({ pageSize: 5 }), connectionId),
    ])
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(ConcurrentSyncError)
    }
    const applied = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.pagesApplied] : []))
    expect(applied.length).toBeGreaterThan(0)
    await runConnectionSync(deps(), connectionId)
    const { actual, expected } = await mirrorAndTruth()
    expect(actual).toEqual(expected)
  })
})

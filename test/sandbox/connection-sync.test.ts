import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ConnectionSyncAccepted, Transaction } from '../../src/api-client/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { recordEvents, type RecordedEvent } from '../support/recorded-events.js'

let harness: SandboxHarness
let events: RecordedEvent[]

// Scheduled syncs off unless a test turns them on, so each test controls every sync.
beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0 })
  events = recordEvents(harness.sandbox)
})
afterAll(() => harness.close())
beforeEach(() => {
  harness.sandbox.reset()
  harness.sandbox.ctx.settings.scheduledSyncIntervalSeconds = 0
  events.length = 0
})

const settings = () => harness.sandbox.ctx.settings
const sync = (id: string) => harness.request('PUT', `/v1/connections/${id}/sync`)
const get = async (id: string) => (await harness.request('GET', `/v1/connections/${id}`)).body
const transactionsOf = (connectionId: string) =>
  [...harness.sandbox.ctx.state.transactions.values()].filter((t) => t.connectionId === connectionId)
const today = () => harness.sandbox.clock.now().toISOString().slice(0, 10)
const daysBefore = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status).toBe(status)
  expect(response.body.error).toMatchObject({ code, message: expect.any(String) })
}

/** A ready connection whose cooldown from the initial sync has run out. */
async function readyOutOfCooldown() {
  const ready = await connectReadyBank(harness)
  await harness.sandbox.advance(settings().syncCooldownSeconds)
  events.length = 0
  return ready
}

describe('the initial historical sync', () => {
  it('backfills 60 to 90 days of transactions, some still pending, then idles with lastSyncedAt set', async () => {
    const { connection } = await connectReadyBank(harness)
    expect(connection).toMatchObject({ syncStatus: 'idle', lastSyncedAt: expect.any(String) })
    const transactions = transactionsOf(connection.id)
    for (const t of transactions) expect(Transaction.safeParse(t).success).toBe(true)
    const earliest = transactions.map((t) => t.postedDate!).sort()[0]!
    expect(earliest >= daysBefore(today(), 90)).toBe(true)
    expect(earliest <= daysBefore(today(), 59)).toBe(true)
    const pending = transactions.filter((t) => t.status === 'pending')
    expect(pending.length).toBeGreaterThan(0)
    expect(pending.every((t) => t.postedDate! >= daysBefore(today(), 1) && t.postedDate! <= today())).toBe(
      true,
    )
  })

  it('emits transactions.sync_available when it completes', async () => {
    const { connection } = await connectReadyBank(harness)
    expect(events.filter((e) => e.type === 'transactions.sync_available')).toEqual([
      {
        orgId: 'org_main',
        type: 'transactions.sync_available',
        data: { connectionId: connection.id, entityId: connection.entityId },
      },
    ])
  })

  it('repeats exactly for the same seed, and differs for another', async () => {
    const run = async (seed: number) => {
      const other = await startSandbox({ seed, scheduledSyncIntervalSeconds: 0 })
      try {
        const { connection, accounts } = await connectReadyBank(other, {
          entityId: '7d1c1c9e-5b6a-4d55-9f0e-0c5e7f1a2b3c',
        })
        const transactions = [...other.sandbox.ctx.state.transactions.values()].map((t) => [
          t.id,
          t.accountId,
          t.postedDate,
          t.amount,
          t.status,
          t.description,
        ])
        return { id: connection.id, accounts, transactions }
      } finally {
        await other.close()
      }
    }
    const a = await run(7)
    const b = await run(7)
    expect(b).toEqual(a)
    expect((await run(8)).transactions).not.toEqual(a.transactions)
  })
})

describe('PUT /v1/connections/{id}/sync', () => {
  it('answers 202 with the queued job and runs the sync: syncing, then idle with a new lastSyncedAt', async () => {
    const { connection } = await readyOutOfCooldown()
    const response = await sync(connection.id)
    expect(response.status).toBe(202)
    expect(ConnectionSyncAccepted.parse(response.body)).toEqual({
      connectionId: connection.id,
      status: 'queued',
      meta: { requestId: response.headers.get('request-id') },
    })
    expect(await get(connection.id)).toMatchObject({
      syncStatus: 'syncing',
      lastSyncedAt: connection.lastSyncedAt,
    })
    await harness.sandbox.advance(settings().syncDurationSeconds)
    const done = await get(connection.id)
    expect(done.syncStatus).toBe('idle')
    expect(done.lastSyncedAt).toBe(harness.sandbox.clock.now().toISOString())
  })

  it('emits transactions.sync_available when the sync completes, not before', async () => {
    const { connection } = await readyOutOfCooldown()
    await sync(connection.id)
    await harness.sandbox.advance(settings().syncDurationSeconds - 1)
    expect(events.filter((e) => e.type === 'transactions.sync_available')).toEqual([])
    await harness.sandbox.advance(1)
    expect(events.filter((e) => e.type === 'transactions.sync_available')).toHaveLength(1)
  })

  it('answers 409 sync_in_progress while a sync runs', async () => {
    const { connection } = await readyOutOfCooldown()
    await sync(connection.id)
    expectError(await sync(connection.id), 409, 'sync_in_progress')
  })

  it('answers 409 connection_in_setup for a setup-stage connection', async () => {
    const created = await harness.request('POST', '/v1/connections', {
      body: { entityId: randomUUID(), institutionId: 'ins_harbor_national' },
    })
    expectError(await sync(created.body.id), 409, 'connection_in_setup')
  })

  it('answers 429 sync_cooldown with Retry-After within 45 minutes of the initial sync', async () => {
    const { connection } = await connectReadyBank(harness)
    const syncStarted = Date.parse(connection.lastSyncedAt) - settings().syncDurationSeconds * 1000
    const response = await sync(connection.id)
    expectError(response, 429, 'sync_cooldown')
    const elapsed = (harness.sandbox.clock.now().getTime() - syncStarted) / 1000
    expect(Number(response.headers.get('retry-after'))).toBe(45 * 60 - elapsed)
    await harness.sandbox.advance(Number(response.headers.get('retry-after')) - 1)
    expectError(await sync(connection.id), 429, 'sync_cooldown')
    await harness.sandbox.advance(1)
    expect((await sync(connection.id)).status).toBe(202)
  })

  it('runs the 45-minute cooldown from the start of a manual sync', async () => {
    const { connection } = await readyOutOfCooldown()
    await sync(connection.id)
    await harness.sandbox.advance(45 * 60 - 1)
    const response = await sync(connection.id)
    expectError(response, 429, 'sync_cooldown')
    expect(response.headers.get('retry-after')).toBe('1')
    await harness.sandbox.advance(1)
    expect((await sync(connection.id)).status).toBe(202)
  })

  it('answers 409 connection_not_active for a ready connection that is not active', async () => {
    const { connection } = await readyOutOfCooldown()
    for (const status of ['paused', 'revoked', 'reauthRequired', 'errored', 'invalidConfig']) {
      await harness.request('POST', `/_sandbox/connections/${connection.id}/status`, {
        key: null,
        body: { status },
      })
      expectError(await sync(connection.id), 409, 'connection_not_active')
    }
  })

  it('answers 404 for an unknown connection', async () => {
    expectError(await sync(randomUUID()), 404, 'not_found')
  })
})

describe('what a later sync reports', () => {
  it('adds new lines for the days since the last sync, settles pending ones and voids a few, all through the ledger', async () => {
    const { connection } = await connectReadyBank(harness)
    const before = new Map(transactionsOf(connection.id).map((t) => [t.id, structuredClone(t)]))
    const pendingBefore = [...before.values()].filter((t) => t.status === 'pending')
    const seqBefore = harness.sandbox.ctx.state.syncSeq
    await harness.sandbox.advance(3 * 86_400)
    expect((await sync(connection.id)).status).toBe(202)
    await harness.sandbox.advance(settings().syncDurationSeconds)

    const after = new Map(transactionsOf(connection.id).map((t) => [t.id, t]))
    const added = [...after.values()].filter((t) => !before.has(t.id))
    expect(added.length).toBeGreaterThan(0)
    expect(added.every((t) => t.postedDate! > daysBefore(today(), 3))).toBe(true)
    for (const t of pendingBefore) {
      const now = after.get(t.id)
      if (now) {
        expect(now.status).toBe('posted')
        expect(now.postedDate! > t.postedDate!).toBe(true)
        expect(now.seq).toBeGreaterThan(seqBefore)
      } else {
        expect(harness.sandbox.ctx.state.tombstones.has(t.id)).toBe(true)
      }
    }
    expect([...after.values()].every((t) => t.seq <= harness.sandbox.ctx.state.syncSeq)).toBe(true)
  })

  it('removes only pending lines, so no posted history disappears', async () => {
    const { connection } = await connectReadyBank(harness)
    const posted = transactionsOf(connection.id).filter((t) => t.status === 'posted')
    for (let day = 0; day < 5; day++) {
      await harness.sandbox.advance(86_400)
      await sync(connection.id)
      await harness.sandbox.advance(settings().syncDurationSeconds)
    }
    const now = new Set(transactionsOf(connection.id).map((t) => t.id))
    expect(posted.every((t) => now.has(t.id))).toBe(true)
  })
})

describe('scheduled syncs', () => {
  it('runs the bank’s own sync every interval, which emits sync_available and starts a cooldown', async () => {
    harness.sandbox.ctx.settings.scheduledSyncIntervalSeconds = 4 * 3600
    const { connection } = await connectReadyBank(harness)
    events.length = 0
    const activatedAt = Date.parse(connection.lastSyncedAt) - settings().syncDurationSeconds * 1000
    const elapsed = (harness.sandbox.clock.now().getTime() - activatedAt) / 1000
    await harness.sandbox.advance(4 * 3600 - elapsed + settings().syncDurationSeconds)
    const after = await get(connection.id)
    expect(after.syncStatus).toBe('idle')
    expect(Date.parse(after.lastSyncedAt)).toBe(
      activatedAt + (4 * 3600 + settings().syncDurationSeconds) * 1000,
    )
    expect(events.filter((e) => e.type === 'transactions.sync_available')).toHaveLength(1)
    expectError(await sync(connection.id), 429, 'sync_cooldown')
  })

  it('runs every round it missed when the clock jumps far ahead', async () => {
    harness.sandbox.ctx.settings.scheduledSyncIntervalSeconds = 4 * 3600
    await connectReadyBank(harness)
    events.length = 0
    await harness.sandbox.advance(24 * 3600)
    expect(events.filter((e) => e.type === 'transactions.sync_available')).toHaveLength(6)
  })

  it('skips a round inside the cooldown of a manual sync', async () => {
    harness.sandbox.ctx.settings.scheduledSyncIntervalSeconds = 4 * 3600
    const { connection } = await connectReadyBank(harness)
    const activatedAt = Date.parse(connection.lastSyncedAt) - settings().syncDurationSeconds * 1000
    const elapsed = (harness.sandbox.clock.now().getTime() - activatedAt) / 1000
    await harness.sandbox.advance(4 * 3600 - elapsed - 600)
    expect((await sync(connection.id)).status).toBe(202)
    await harness.sandbox.advance(settings().syncDurationSeconds)
    const manual = (await get(connection.id)).lastSyncedAt
    await harness.sandbox.advance(1200)
    expect((await get(connection.id)).lastSyncedAt).toBe(manual)
  })

  it('gives a connection that is not active no scheduled activity', async () => {
    harness.sandbox.ctx.settings.scheduledSyncIntervalSeconds = 4 * 3600
    const { connection } = await connectReadyBank(harness)
    await harness.request('POST', `/_sandbox/connections/${connection.id}/status`, {
      key: null,
      body: { status: 'paused' },
    })
    const count = transactionsOf(connection.id).length
    const seq = harness.sandbox.ctx.state.syncSeq
    events.length = 0
    await harness.sandbox.advance(24 * 3600)
    expect((await get(connection.id)).lastSyncedAt).toBe(connection.lastSyncedAt)
    expect(transactionsOf(connection.id)).toHaveLength(count)
    expect(harness.sandbox.ctx.state.syncSeq).toBe(seq)
    expect(events.filter((e) => e.type === 'transactions.sync_available')).toEqual([])
  })
})

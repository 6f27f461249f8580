import { randomBytes } from 'node:crypto'
import type { Job } from 'bullmq'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createBankClient } from '../../src/api-client/index.js'
import { silentLogger } from '../../src/observability/index.js'
import {
  CONNECTION_SYNC_QUEUE,
  createBackendQueue,
  isRefreshJobId,
  type ConnectionSyncJobData,
} from '../../src/queue/index.js'
import {
  createRefreshPacing,
  processSyncJob,
  type RefreshPacing,
  type SyncWorkerDeps,
} from '../../src/sync/index.js'
import { hasUnservedSyncRequests, noteSyncRequest } from '../../src/store/index.js'
import { mirrorDifferences } from '../support/chaos/mirror-check.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

const EVERY_MS = 60_000
const backend = {
  kind: 'redis' as const,
  url: 'redis://127.0.0.1:6379',
  prefix: `test-refresh-${randomBytes(4).toString('hex')}`,
}
let harness: SandboxHarness
let database: TestDatabase
let queue: ReturnType<typeof createBackendQueue<ConnectionSyncJobData>>

beforeAll(async () => {
  harness = await startSandbox({ generatedActivity: false })
  database = await createTestDatabase('refresh_pacing')
})
afterAll(async () => {
  await harness?.close()
  await database?.drop()
})
beforeEach(() => {
  queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
})
afterEach(async () => {
  await queue.obliterate({ force: true })
  await queue.close()
})

function pacedDeps(
  everyMs = EVERY_MS,
  owingQueue = queue,
): SyncWorkerDeps & { refreshPacing: RefreshPacing } {
  const clock = harness.sandbox.clock
  return {
    db: database.db,
    pool: database.pool,
    lockNamespace: database.schema,
    client: createBankClient({ baseUrl: harness.url, apiKey: harness.apiKey, maxRetries: 0 }),
    clock,
    logger: silentLogger,
    queue,
    backend,
    refreshPacing: createRefreshPacing(owingQueue, everyMs, clock),
  }
}

const syncJob = (connectionId: string) =>
  ({ data: { connectionId, reason: 'test' } }) as Job<ConnectionSyncJobData>

/** A payment at the bank: a new transaction in the stream, and a new balance on its account. */
async function addPayment(connectionId: string, amount: string): Promise<void> {
  const answer = await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
    body: { amount, paymentReference: 'INV-7', counterpartyName: 'Acme Corp' },
  })
  if (answer.status !== 201) throw new Error(`adding a transaction failed: ${JSON.stringify(answer.body)}`)
}

async function differencesFromBank(connectionId: string): Promise<string[]> {
  const truth = (await harness.request('GET', `/_sandbox/state?connectionId=${connectionId}`)).body
  return mirrorDifferences(database.db, truth, [connectionId])
}

/** The connection's last re-read by any process (sync_requests.refreshed_at), clock ms; undefined, never. */
async function refreshedAtMs(connectionId: string): Promise<number | undefined> {
  const row = await database.db
    .selectFrom('sync_requests')
    .select('refreshed_at')
    .where('connection_id', '=', connectionId)
    .executeTakeFirst()
  return row?.refreshed_at?.getTime()
}

/** As if some process last re-read the connection at `atMs`. */
async function setRefreshedAt(connectionId: string, atMs: number): Promise<void> {
  await database.db
    .updateTable('sync_requests')
    .set({ refreshed_at: new Date(atMs) })
    .where('connection_id', '=', connectionId)
    .execute()
}

async function owedJobs(): Promise<Job<ConnectionSyncJobData>[]> {
  return (await queue.getDelayed()).filter((job) => isRefreshJobId(job.id))
}

describe('pacing the re-read after caught-up syncs', () => {
  it('owes the re-read of a run soon after the last one to a delayed job, which re-reads accounts and balances', async () => {
    const { connection } = await connectReadyBank(harness)
    const statusReads: string[] = []
    const deps = {
      ...pacedDeps(),
      recordConnection: async (c: { id: string }) => void statusReads.push(c.id),
    }
    await processSyncJob(deps, syncJob(connection.id), undefined)
    expect(await differencesFromBank(connection.id)).toEqual([])
    const firstReadAt = (await refreshedAtMs(connection.id))!
    expect(firstReadAt).toBeGreaterThan(0)

    await addPayment(connection.id, '1250.75')
    await processSyncJob(deps, syncJob(connection.id), undefined)
    // The connection's status is owed with the rest.
    expect(statusReads).toEqual([connection.id])
    // The payment is mirrored; its account's balance waits for the owed re-read.
    const before = await differencesFromBank(connection.id)
    expect(before.some((d) => d.startsWith('transaction'))).toBe(false)
    expect(before.some((d) => d.startsWith('account') && d.includes('currentBalance'))).toBe(true)
    const [owed, ...more] = await owedJobs()
    expect(more).toEqual([])
    expect(owed!.data).toEqual({ connectionId: connection.id, reason: 'refresh', refresh: true })
    expect(owed!.timestamp + owed!.delay).toBeGreaterThan(Date.now())

    // A third caught-up run in the same interval owes the same job.
    await addPayment(connection.id, '10.00')
    await processSyncJob(deps, syncJob(connection.id), undefined)
    expect((await owedJobs()).map((job) => job.id)).toEqual([owed!.id])

    // The owed job re-reads, however recent this process's last re-read.
    await processSyncJob(deps, owed!, undefined)
    expect(await differencesFromBank(connection.id)).toEqual([])
    expect(statusReads).toEqual([connection.id, connection.id])
    expect(await refreshedAtMs(connection.id)).toBeGreaterThanOrEqual(firstReadAt)
  })

  it("paces from any process's last re-read: another process's caught-up run owes it, to the same job", async () => {
    const { connection } = await connectReadyBank(harness)
    const reads = { first: 0, second: 0 }
    // Two worker processes: each has its own pacing, as createRefreshPacing is called once per process.
    const first = { ...pacedDeps(), recordConnection: async () => void reads.first++ }
    const second = { ...pacedDeps(), recordConnection: async () => void reads.second++ }
    await processSyncJob(first, syncJob(connection.id), undefined)
    expect(reads).toEqual({ first: 1, second: 0 })

    // The second process never re-read this connection; the first did, within the interval.
    await addPayment(connection.id, '18.40')
    await processSyncJob(second, syncJob(connection.id), undefined)
    expect(reads).toEqual({ first: 1, second: 0 })
    const owed = await owedJobs()
    expect(owed).toHaveLength(1)
    expect((await differencesFromBank(connection.id)).some((d) => d.startsWith('transaction'))).toBe(false)

    // The first process, caught up in the same interval, owes the same job.
    await addPayment(connection.id, '18.41')
    await processSyncJob(first, syncJob(connection.id), undefined)
    expect(reads).toEqual({ first: 1, second: 0 })
    expect((await owedJobs()).map((job) => job.id)).toEqual([owed[0]!.id])

    // Whichever process runs the owed job re-reads, and the mirror is whole again.
    await processSyncJob(second, owed[0]!, undefined)
    expect(reads).toEqual({ first: 1, second: 1 })
    expect(await differencesFromBank(connection.id)).toEqual([])
  })

  it('reads the status alone a second after its last read, and the accounts, balances and proof 5 s after theirs', async () => {
    const { connection } = await connectReadyBank(harness)
    const statusReads: string[] = []
    const deps = {
      ...pacedDeps(1_000),
      recordConnection: async (c: { id: string }) => void statusReads.push(c.id),
    }
    await processSyncJob(deps, syncJob(connection.id), undefined)
    const provedAt = (await refreshedAtMs(connection.id))!

    await harness.sandbox.advance(1)
    await addPayment(connection.id, '64.00')
    await processSyncJob(deps, syncJob(connection.id), undefined)
    expect(statusReads).toEqual([connection.id, connection.id])
    const before = await differencesFromBank(connection.id)
    expect(before.some((d) => d.startsWith('transaction'))).toBe(false)
    expect(before.some((d) => d.startsWith('account') && d.includes('currentBalance'))).toBe(true)
    expect(await refreshedAtMs(connection.id)).toBe(provedAt)
    // Owed to when the proof is due: 5 s after the last.
    const [owed, ...more] = await owedJobs()
    expect(more).toEqual([])
    expect(owed!.delay).toBeGreaterThan(3_000)
    expect(owed!.delay).toBeLessThanOrEqual(4_000)

    await harness.sandbox.advance(4)
    await addPayment(connection.id, '65.00')
    await processSyncJob(deps, syncJob(connection.id), undefined)
    expect(statusReads).toHaveLength(3)
    expect(await differencesFromBank(connection.id)).toEqual([])

    // That run read all of it after the job was owed: the job, falling due now, reads nothing again.
    const provedAgainAt = await refreshedAtMs(connection.id)
    expect(provedAgainAt).toBeGreaterThan(provedAt)
    await processSyncJob(deps, owed!, undefined)
    expect(statusReads).toHaveLength(3)
    expect(await refreshedAtMs(connection.id)).toBe(provedAgainAt)
  })

  it('owes a read again when the owed job syncs changes after a full read that came since it was owed', async () => {
    const { connection } = await connectReadyBank(harness)
    const deps = pacedDeps(1_000)
    await processSyncJob(deps, syncJob(connection.id), undefined)
    await harness.sandbox.advance(1)
    await addPayment(connection.id, '70.00')
    await processSyncJob(deps, syncJob(connection.id), undefined)
    const [owed] = await owedJobs()
    // 5 s after the first read a caught-up run reads all of it, before the job runs.
    await harness.sandbox.advance(4)
    await addPayment(connection.id, '71.00')
    await processSyncJob(deps, syncJob(connection.id), undefined)
    expect(await differencesFromBank(connection.id)).toEqual([])

    // The job's own run brings a payment that read did not see: it is owed again, not dropped.
    await addPayment(connection.id, '72.00')
    await processSyncJob(deps, owed!, undefined)
    const differences = await differencesFromBank(connection.id)
    expect(differences.some((d) => d.startsWith('transaction'))).toBe(false)
    expect(differences.some((d) => d.startsWith('account') && d.includes('currentBalance'))).toBe(true)
    const again = (await owedJobs()).filter((job) => job.id !== owed!.id)
    expect(again).toHaveLength(1)
    await processSyncJob(deps, again[0]!, undefined)
    expect(await differencesFromBank(connection.id)).toEqual([])
  })

  it('leaves an owed read whose job finds the lock taken to the holder, as a request it serves', async () => {
    const { connection } = await connectReadyBank(harness)
    const deps = pacedDeps()
    await processSyncJob(deps, syncJob(connection.id), undefined)
    await addPayment(connection.id, '12.34')
    await processSyncJob(deps, syncJob(connection.id), undefined)
    const [owed] = await owedJobs()
    expect(await hasUnservedSyncRequests(database.db, connection.id)).toBe(false)

    // Another run holds the connection's lock as the job falls due (the key syncLockName makes).
    const lockKey = `${database.schema}:sync:${connection.id}`
    const holder = await database.pool.connect()
    try {
      await holder.query('select pg_advisory_lock(hashtextextended($1, 0))', [lockKey])
      expect((await processSyncJob(deps, owed!, undefined)).skipped).toBe('locked')
    } finally {
      await holder.query('select pg_advisory_unlock(hashtextextended($1, 0))', [lockKey])
      holder.release()
    }
    expect(await hasUnservedSyncRequests(database.db, connection.id)).toBe(true)

    // The holder runs once more for it, past the due time, and reads all of it.
    await harness.sandbox.advance(EVERY_MS / 1_000)
    await processSyncJob(deps, syncJob(connection.id), undefined)
    expect(await hasUnservedSyncRequests(database.db, connection.id)).toBe(false)
    expect(await differencesFromBank(connection.id)).toEqual([])
  })

  it("reads the status in a loop that is not caught up only a second after its process's last read", async () => {
    const { connection } = await connectReadyBank(harness)
    const statusReads: string[] = []
    const deps = {
      ...pacedDeps(),
      recordConnection: async (c: { id: string }) => void statusReads.push(c.id),
    }
    await processSyncJob(deps, syncJob(connection.id), undefined)
    expect(statusReads).toEqual([connection.id])

    // A request noted during the next loop's first run keeps it from being caught up after that run.
    await addPayment(connection.id, '42.00')
    let noted = false
    const busy = {
      ...deps,
      onChangesApplied: async (connectionId: string) => {
        if (noted) return
        noted = true
        await noteSyncRequest(database.db, connectionId)
      },
    }
    await processSyncJob(busy, syncJob(connection.id), undefined)
    expect(noted).toBe(true)
    // This process read the status within the second (the clock did not move): no read while the loop ran, and
    // the caught-up run after it owed its re-read.
    expect(statusReads).toEqual([connection.id])
    expect(await owedJobs()).toHaveLength(1)
    expect((await differencesFromBank(connection.id)).some((d) => d.startsWith('transaction'))).toBe(false)

    // A second later, the same kind of loop reads it again.
    await harness.sandbox.advance(1)
    noted = false
    await addPayment(connection.id, '43.00')
    await processSyncJob(busy, syncJob(connection.id), undefined)
    expect(statusReads).toEqual([connection.id, connection.id])
  })

  it('re-reads at once when the interval is over, and when pacing is off (SYNC_REFRESH_SECONDS=0)', async () => {
    const { connection } = await connectReadyBank(harness)
    for (const deps of [pacedDeps(0), pacedDeps()]) {
      await processSyncJob(deps, syncJob(connection.id), undefined)
      await setRefreshedAt(connection.id, harness.sandbox.clock.now().getTime() - EVERY_MS)
      await addPayment(connection.id, '77.10')
      await processSyncJob(deps, syncJob(connection.id), undefined)
      expect(await differencesFromBank(connection.id)).toEqual([])
    }
    expect(await owedJobs()).toEqual([])
  })

  it('never puts off the re-read after a bootstrap: it covers every day', async () => {
    const { connection } = await connectReadyBank(harness)
    const deps = pacedDeps()
    await noteSyncRequest(database.db, connection.id)
    await setRefreshedAt(connection.id, harness.sandbox.clock.now().getTime())
    await processSyncJob(deps, syncJob(connection.id), undefined)
    expect(await differencesFromBank(connection.id)).toEqual([])
    expect(await owedJobs()).toEqual([])
  })

  it('re-reads at once when the re-read cannot be owed (the queue is unreachable)', async () => {
    const { connection } = await connectReadyBank(harness)
    const closed = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    await closed.close()
    const deps = pacedDeps(EVERY_MS, closed)
    await processSyncJob(deps, syncJob(connection.id), undefined)
    await addPayment(connection.id, '310.00')
    await processSyncJob(deps, syncJob(connection.id), undefined)
    expect(await differencesFromBank(connection.id)).toEqual([])
  })
})

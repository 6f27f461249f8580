import { randomBytes } from 'node:crypto'
import { QueueEvents } from 'bullmq'
import { Decimal } from 'decimal.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBankClient } from '../../src/api-client/index.js'
import { silentLogger } from '../../src/observability/index.js'
import {
  CONNECTION_SYNC_QUEUE,
  createBackendQueue,
  type ConnectionSyncJobData,
} from '../../src/queue/index.js'
import { createSyncWorker, processSyncJob } from '../../src/sync/sync-worker.js'
import { syncLockName } from '../../src/sync/sync-lock.js'
import type { SyncProblem } from '../../src/sync/sync-deps.js'
import { requestConnectionSync } from '../../src/sync/request-sync.js'
import { hasUnservedSyncRequests, noteSyncRequest } from '../../src/store/index.js'
import { recordingDatabase } from '../support/recording-database.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

const backend = {
  kind: 'redis' as const,
  url: 'redis://127.0.0.1:6379',
  prefix: `test-sync-${randomBytes(4).toString('hex')}`,
}
let harness: SandboxHarness
let database: TestDatabase

beforeAll(async () => {
  harness = await startSandbox()
  database = await createTestDatabase('sync_worker')
})
afterAll(async () => {
  await harness?.close()
  await database?.drop()
})

function workerDeps(
  queue: ReturnType<typeof createBackendQueue<ConnectionSyncJobData>>,
  problems: SyncProblem[] = [],
) {
  return {
    db: database.db,
    pool: database.pool,
    lockNamespace: database.schema,
    client: createBankClient({ baseUrl: harness.url, apiKey: harness.apiKey, maxRetries: 0 }),
    clock: harness.sandbox.clock,
    logger: silentLogger,
    queue,
    backend,
    onProblem: (p: SyncProblem) => void problems.push(p),
  }
}

async function mirrorCount(connectionId: string): Promise<number> {
  const row = await database.db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('connection_id', '=', connectionId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

async function truthCount(connectionId: string): Promise<number> {
  const state = await harness.request('GET', `/_sandbox/state?connectionId=${connectionId}`)
  return state.body.transactions.length
}

describe('sync worker', () => {
  it('syncs a requested connection into the mirror with its accounts, balances and status', async () => {
    const { connection } = await connectReadyBank(harness)
    const queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    const events = new QueueEvents(CONNECTION_SYNC_QUEUE, {
      connection: { url: backend.url },
      prefix: backend.prefix,
    })
    const worker = createSyncWorker(workerDeps(queue))
    try {
      const done = new Promise<void>((resolve) => events.on('completed', () => resolve()))
      await events.waitUntilReady()
      await requestConnectionSync({ db: database.db, queue }, connection.id, 'test')
      await done
      expect(await mirrorCount(connection.id)).toBe(await truthCount(connection.id))
      const accounts = await database.db
        .selectFrom('accounts')
        .selectAll()
        .where('connection_id', '=', connection.id)
        .execute()
      expect(accounts.length).toBeGreaterThanOrEqual(2)
      const balances = await database.db
        .selectFrom('daily_balances')
        .select('account_id')
        .where('connection_id', '=', connection.id)
        .execute()
      expect(balances.length).toBeGreaterThan(0)
      const history = await database.db
        .selectFrom('connection_status_history')
        .selectAll()
        .where('connection_id', '=', connection.id)
        .execute()
      expect(history.map((h) => h.status)).toEqual(['active'])
    } finally {
      await worker.close()
      await events.close()
      await queue.close()
    }
  })

  it('skips a run while another process holds the connection lock', async () => {
    const { connection } = await connectReadyBank(harness)
    const queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    const holder = await database.pool.connect()
    try {
      await holder.query('select pg_advisory_lock(hashtextextended($1, 0))', [
        syncLockName(database.schema, connection.id),
      ])
      const outcome = await processSyncJob(
        workerDeps(queue),
        { data: { connectionId: connection.id, reason: 't' } } as any,
        undefined,
      )
      expect(outcome).toEqual({ connectionId: connection.id, runs: 0, skipped: 'locked' })
      expect(await mirrorCount(connection.id)).toBe(0)
    } finally {
      await holder.query('select pg_advisory_unlock_all()')
      holder.release()
      await queue.close()
    }
  })

  it('purges the mirror of a connection deleted at the bank and reports it gone', async () => {
    const { connection } = await connectReadyBank(harness)
    const queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    const problems: SyncProblem[] = []
    try {
      const deps = workerDeps(queue, problems)
      await processSyncJob(deps, { data: { connectionId: connection.id, reason: 't' } } as any, undefined)
      expect(await mirrorCount(connection.id)).toBeGreaterThan(0)
      expect((await harness.request('DELETE', `/v1/connections/${connection.id}`)).status).toBe(204)
      await expect(
        processSyncJob(deps, { data: { connectionId: connection.id, reason: 't' } } as any, undefined),
      ).rejects.toThrow(/no longer exists/)
      expect(await mirrorCount(connection.id)).toBe(0)
      expect(problems).toEqual([{ kind: 'connection_gone', connectionId: connection.id }])
    } finally {
      await queue.close()
    }
  })

  it('re-reads the balance of the day a removed transaction had (a removed event names no date)', async () => {
    const { connection } = await connectReadyBank(harness)
    const queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    try {
      const deps = workerDeps(queue)
      const job = { data: { connectionId: connection.id, reason: 't' } } as any
      await processSyncJob(deps, job, undefined)
      const truth = await harness.request('GET', `/_sandbox/state?connectionId=${connection.id}`)
      const today = harness.sandbox.clock.now().toISOString().slice(0, 10)
      const old = (truth.body.transactions as any[]).find(
        (t) => t.status === 'posted' && t.postedDate < today && t.currency === 'USD',
      )
      expect((await harness.request('DELETE', `/_sandbox/transactions/${old.id}`)).status).toBe(204)
      await processSyncJob(deps, job, undefined)
      const bank = await harness.request(
        'GET',
        `/v1/balances?accountId=${old.accountId}&dateGte=${old.postedDate}&dateLt=${today}&limit=500`,
      )
      const mirrored = await database.db
        .selectFrom('daily_balances')
        .select(['date', 'ledger_balance', 'posted_transaction_delta'])
        .where('account_id', '=', old.accountId)
        .where('date', '>=', old.postedDate)
        .where('date', '<', today)
        .orderBy('date', 'desc')
        .execute()
      const exact = (v: string) => new Decimal(v).toString()
      expect(
        mirrored.map((r) => [r.date, exact(r.ledger_balance), exact(r.posted_transaction_delta)]),
      ).toEqual(
        (bank.body.data as any[]).map((b) => [
          b.date,
          exact(b.ledgerBalance),
          exact(b.postedTransactionDelta),
        ]),
      )
    } finally {
      await queue.close()
    }
  })

  it('hands the applied changes to reconciliation before it re-reads the connection, accounts and balances', async () => {
    const { connection } = await connectReadyBank(harness)
    const queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    const calls: string[] = []
    try {
      await processSyncJob(
        {
          ...workerDeps(queue),
          onChangesApplied: (_id, result) => void calls.push(`changes applied: ${result.upserted > 0}`),
          recordConnection: async () => void calls.push('connection re-read'),
          onSynced: () => void calls.push('synced'),
        },
        { data: { connectionId: connection.id, reason: 't' } } as any,
        undefined,
      )
      expect(calls).toEqual(['changes applied: true', 'connection re-read', 'synced'])
    } finally {
      await queue.close()
    }
  })

  it('proves once the connection is caught up, not after every run while requests keep coming', async () => {
    const { connection } = await connectReadyBank(harness)
    const queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    const proved: Array<{ upserted: number; bootstrapped: boolean }> = []
    let runs = 0
    try {
      await noteSyncRequest(database.db, connection.id)
      const outcome = await processSyncJob(
        {
          ...workerDeps(queue),
          // Two more requests arrive while the first runs are under way (the virtual clock stands still).
          onChangesApplied: async () => {
            if (++runs < 3) await noteSyncRequest(database.db, connection.id)
          },
          onSynced: (_id, result) =>
            void proved.push({ upserted: result.upserted, bootstrapped: result.bootstrapped }),
        },
        { data: { connectionId: connection.id, reason: 't' } } as any,
        undefined,
      )
      expect(outcome.runs).toBe(3)
      expect(proved).toHaveLength(1)
      expect(proved[0]!.bootstrapped).toBe(true)
      expect(proved[0]!.upserted).toBe(await mirrorCount(connection.id))
      expect(await mirrorCount(connection.id)).toBe(await truthCount(connection.id))
    } finally {
      await queue.close()
    }
  })

  it('keeps a sync owed when re-reading the caught-up connection fails after its requests were marked served', async () => {
    const { connection } = await connectReadyBank(harness)
    const queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    try {
      await noteSyncRequest(database.db, connection.id)
      await expect(
        processSyncJob(
          {
            ...workerDeps(queue),
            onSynced: () => {
              throw new Error('the balance re-read failed')
            },
          },
          { data: { connectionId: connection.id, reason: 't' } } as any,
          undefined,
        ),
      ).rejects.toThrow('the balance re-read failed')
      // Its pages are in the mirror, but the re-read after them is still owed: the job's retry runs again.
      expect(await mirrorCount(connection.id)).toBe(await truthCount(connection.id))
      expect(await hasUnservedSyncRequests(database.db, connection.id)).toBe(true)
    } finally {
      await queue.close()
    }
  })

  it('runs again for a request that came during a run in two statements: the page and the mark', async () => {
    const { connection } = await connectReadyBank(harness)
    const queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    const statements: string[] = []
    // Every statement the sync sends recorded; the runs' hand-offs marked between.
    const db = recordingDatabase(database.pool, statements)
    let runs = 0
    try {
      await noteSyncRequest(database.db, connection.id)
      const outcome = await processSyncJob(
        {
          ...workerDeps(queue),
          db,
          // Each run's changes bring one more request, until the fourth (the virtual clock stands still, so no
          // re-read of the connection or proof comes between the second and the third run).
          onChangesApplied: async () => {
            statements.push('changes applied')
            if (++runs < 4) await noteSyncRequest(database.db, connection.id)
          },
        },
        { data: { connectionId: connection.id, reason: 't' } } as any,
        undefined,
      )
      expect(outcome.runs).toBe(4)
      const applied = statements.flatMap((statement, at) => (statement === 'changes applied' ? [at] : []))
      const between = statements.slice(applied[1]! + 1, applied[2])
      expect(between, between.join('\n')).toHaveLength(2)
      expect(await mirrorCount(connection.id)).toBe(await truthCount(connection.id))
    } finally {
      await queue.close()
    }
  })
})

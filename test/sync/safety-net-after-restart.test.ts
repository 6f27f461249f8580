import { randomBytes } from 'node:crypto'
import type { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import {
  CONNECTION_SYNC_JOB_OPTIONS,
  CONNECTION_SYNC_QUEUE,
  createBackendQueue,
  syncJobId,
  type ConnectionSyncJobData,
} from '../../src/queue/index.js'
import { queueBackendFor, startSidecar, type Sidecar } from '../../src/sidecar/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY, dropSidecarSchemas } from '../support/test-database.js'

/**
 * Issue 27: after a restart, with SYNC_INTERVAL_SECONDS=10, the safety net asked for syncs of both connections six
 * times in a minute, and one connection synced only when a webhook came: each request folded into the
 * connection's one job, which waited out a retry back-off. Here the bank registers no webhook (every
 * `transactions.sync_available` is dropped), a long back-off is pending for a connection at each restart and again
 * while the process runs, and each round books a new transaction on each of two connections: the start-up request
 * and the safety net's must bring both into the mirror, round after round.
 */
const RETRY_BACKOFF_MS = 60 * 60 * 1000

describe.each(['redis', 'postgres'] as const)('the safety net after restarts (%s queue)', (kind) => {
  const suffix = randomBytes(4).toString('hex')
  const schema = `test_safety_net_${kind}_${suffix}`
  let harness: SandboxHarness
  let connections: string[]
  let sidecar: Sidecar | undefined

  const config = () =>
    loadConfig({
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: schema,
      REDIS_URL: kind === 'redis' ? 'redis://127.0.0.1:6379' : '',
      QUEUE_PREFIX: `test-safety-net-${suffix}`,
      PORT: '0',
      KIT_API_TOKEN: 'test-token-0123456789',
      BANK_API_URL: harness.url,
      BANK_API_KEY: harness.apiKey,
      SYNC_INTERVAL_SECONDS: '10',
      TRANSFER_SCAN_SECONDS: '3600',
      ALERT_TICK_SECONDS: '3600',
    })

  beforeAll(async () => {
    harness = await startSandbox({ generatedActivity: false })
    connections = [
      (await connectReadyBank(harness)).connection.id as string,
      (await connectReadyBank(harness)).connection.id as string,
    ]
  })

  afterAll(async () => {
    await sidecar?.close()
    await harness?.close()
    await dropSidecarSchemas(schema)
  })

  /** The state a retry leaves: the connection's one sync job, delayed by a back-off far longer than an interval. */
  async function backOff(queue: Queue<ConnectionSyncJobData>, connectionId: string): Promise<void> {
    // The add folds into a job of the connection still waiting or running (the start-up's): once that is done.
    await vi.waitFor(
      async () => {
        await queue.add(
          'sync',
          { connectionId, reason: 'retry' },
          { ...CONNECTION_SYNC_JOB_OPTIONS, jobId: syncJobId(connectionId), delay: RETRY_BACKOFF_MS },
        )
        const job = await queue.getJob(syncJobId(connectionId))
        if (!(await job?.isDelayed())) throw new Error(`the sync job of ${connectionId} is not backing off`)
      },
      { timeout: 15_000, interval: 50 },
    )
  }

  /** A new transaction on every connection; no webhook reaches bankrec. */
  async function bookOnEach(): Promise<string[]> {
    const ids: string[] = []
    for (const connectionId of connections) {
      const booked = await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
        body: { amount: '12.34' },
      })
      expect(booked.status).toBe(201)
      ids.push(booked.body.id as string)
    }
    return ids
  }

  async function awaitMirrored(running: Sidecar, ids: string[]): Promise<void> {
    await vi.waitFor(
      async () => {
        const rows = await running.context.store.db
          .selectFrom('transactions')
          .select('id')
          .where('id', 'in', ids)
          .execute()
        if (rows.length !== ids.length)
          throw new Error(`${rows.length} of ${ids.length} transactions mirrored`)
      },
      { timeout: 30_000, interval: 100 },
    )
  }

  it('syncs every ready connection after each of three restarts and on the schedule, whatever back-off is pending', async () => {
    for (let round = 0; round < 3; round++) {
      const backend = queueBackendFor(config(), `${TEST_DATABASE_URL}`)
      const syncQueue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
      try {
        // While bankrec is down: a connection's sync waits out a back-off, and both connections get a transaction.
        if (round > 0) await backOff(syncQueue, connections[round % 2]!)
        const whileDown = await bookOnEach()

        sidecar = await startSidecar({
          config: config(),
          roles: new Set(['worker']),
          logger: createLogger({ level: 'silent' }),
        })
        // The start-up request syncs both.
        await awaitMirrored(sidecar, whileDown)

        // While it runs: the other connection's sync backs off, both get a transaction, the schedule fires.
        await backOff(syncQueue, connections[(round + 1) % 2]!)
        const whileUp = await bookOnEach()
        await syncQueue.add('sync-all', { connectionId: '*', reason: 'schedule' })
        await awaitMirrored(sidecar, whileUp)
      } finally {
        await sidecar?.close()
        sidecar = undefined
        await syncQueue.close()
      }
    }
  }, 180_000)
})

import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CONNECTION_SYNC_QUEUE,
  createBackendQueue,
  type ConnectionSyncJobData,
} from '../../src/queue/index.js'
import { requestConnectionSync } from '../../src/sync/index.js'
import { startCluster, TEST_REDIS_URL, type Cluster } from '../support/chaos/cluster.js'
import { installCursorAudit, readCursorTransitions, repeatedPages } from '../support/chaos/cursor-audit.js'
import { mirrorDifferences } from '../support/chaos/mirror-check.js'
import { quiesce } from '../support/chaos/quiesce.js'
import { waitUntil } from '../support/chaos/wait-until.js'
import { connectReadyBank } from '../support/sandbox-harness.js'

let cluster: Cluster
let connectionId: string

beforeAll(async () => {
  cluster = await startCluster({
    label: 'concurrent',
    queue: 'redis',
    workers: 2,
    // Three events a page: every catch-up below is dozens of pages, each its own transaction and cursor step.
    env: { SYNC_PAGE_SIZE: '3', JOB_LOCK_SECONDS: '2', WORKER_CONCURRENCY: '2' },
    prepareDatabase: (database) => installCursorAudit(database.db, database.schema),
  })
  connectionId = (await connectReadyBank(cluster.sandbox)).connection.id
  // The first sync bootstraps from the list endpoint; the tests start once the stream is live.
  await quiesce(cluster, [connectionId], { timeoutMs: 60_000 })
}, 120_000)

afterAll(async () => {
  await cluster?.close()
})

/** Adds `count` posted transactions at the bank, each a change in the connection's sync stream. */
async function addTransactions(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const answer = await cluster.sandbox.request(
      'POST',
      `/_sandbox/connections/${connectionId}/transactions`,
      {
        body: { amount: `${100 + i}.25`, paymentReference: `INV-${i}`, counterpartyName: 'Acme Corp' },
      },
    )
    if (answer.status !== 201) throw new Error(`adding a transaction failed: ${JSON.stringify(answer.body)}`)
  }
}

/** Many sync requests for the one connection at once, as `bankrec sync` and a webhook storm would make them. */
async function requestSyncStorm(requests: number): Promise<void> {
  const queue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, {
    kind: 'redis',
    url: TEST_REDIS_URL,
    prefix: cluster.queuePrefix,
  })
  try {
    await Promise.all(
      Array.from({ length: requests }, () =>
        requestConnectionSync({ db: cluster.database.db, queue }, connectionId, 'storm'),
      ),
    )
  } finally {
    await queue.close()
  }
}

async function expectMirrorEqualsBank(): Promise<void> {
  await quiesce(cluster, [connectionId], { timeoutMs: 60_000 })
  const truth = (await cluster.sandbox.request('GET', `/_sandbox/state?connectionId=${connectionId}`)).body
  expect(await mirrorDifferences(cluster.database.db, truth, [connectionId])).toEqual([])
}

describe('two worker processes on one connection', () => {
  it('apply each page once when a storm of syncs hits both at the same time', async () => {
    const before = (await readCursorTransitions(cluster.database.db, cluster.schema)).length
    await cluster.sandbox.request('PUT', '/_sandbox/faults', { body: { api: { latencyMs: 20 } } })
    await addTransactions(60)
    await Promise.all([requestSyncStorm(40), cluster.sandbox.request('POST', '/_sandbox/webhooks/flush')])
    await expectMirrorEqualsBank()

    const transitions = await readCursorTransitions(cluster.database.db, cluster.schema)
    // 60 new transactions in pages of 3: at least 20 pages, each applied once.
    expect(transitions.slice(before).filter((t) => t.fromCursor !== null).length).toBeGreaterThanOrEqual(20)
    expect(repeatedPages(transitions)).toEqual([])
  }, 120_000)

  it('apply each page once when the syncing process freezes, loses its lock and wakes up after the other took over', async () => {
    const before = (await readCursorTransitions(cluster.database.db, cluster.schema)).length
    await cluster.sandbox.request('PUT', '/_sandbox/faults', { body: { api: { latencyMs: 60 } } })
    await addTransactions(90)
    await requestSyncStorm(5)

    const [holder] = await waitUntil(
      'a worker to hold the sync lock',
      () => cluster.syncingWorkers([connectionId]).then((h) => h.length > 0 && h),
      {
        timeoutMs: 20_000,
        intervalMs: 20,
      },
    )
    const frozen = cluster.workers[holder!.slot]!
    const other = 1 - holder!.slot
    frozen.pause()
    // Its database session dies (a network partition, an idle timeout): the advisory lock goes with it, while
    // the process itself still believes it holds it.
    await sql`select pg_terminate_backend(l.pid) from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and a.application_name = ${`${cluster.applicationName}_worker${holder!.slot}`}`.execute(
      cluster.database.db,
    )
    await waitUntil(
      'the other worker to take the job over and apply a page',
      async () =>
        (await readCursorTransitions(cluster.database.db, cluster.schema))
          .slice(before)
          .some((t) => t.writer.endsWith(`_worker${other}`) && t.fromCursor !== null),
      { timeoutMs: 30_000, intervalMs: 100 },
    )
    frozen.resume()
    await addTransactions(15)
    await requestSyncStorm(5)
    await cluster.sandbox.request('PUT', '/_sandbox/faults', { body: {} })
    await expectMirrorEqualsBank()

    const transitions = await readCursorTransitions(cluster.database.db, cluster.schema)
    expect(repeatedPages(transitions)).toEqual([])
    // The woken process survived its severed session and the other worker applied pages meanwhile.
    expect(frozen.exited()).toBe(false)
    expect(transitions.slice(before).some((t) => t.writer.endsWith(`_worker${other}`))).toBe(true)
  }, 150_000)
})

import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { silentLogger } from '../../src/observability/index.js'
import { matchLockName, runMatchingWithin } from '../../src/matching/index.js'
import { countPendingMatches } from '../../src/store/index.js'
import { waitUntil } from '../support/chaos/wait-until.js'
import { TEST_DATABASE_URL } from '../support/test-database.js'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

/** A run in place waits its turn for the matching lock, within a bound; held longer, it leaves the run to the queue. */
let store: MatchingStore
let holder: pg.Client

beforeAll(async () => {
  store = await createMatchingStore('lock_wait')
  holder = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await holder.connect()
})

afterAll(async () => {
  await holder?.end()
  await store?.drop()
})

const deps = () => ({
  db: store.db,
  lockNamespace: store.schema,
  clock: store.clock,
  logger: silentLogger,
})

/** Another run's transaction holding the matching lock until `release`. */
async function holdMatchingLock(): Promise<{ release(): Promise<void> }> {
  await holder.query('begin')
  await holder.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [matchLockName(store.schema)])
  return { release: async () => void (await holder.query('commit')) }
}

it('gives up when the lock stays held past the bound, leaving the outbox as it was', async () => {
  await store.invoice({ id: 'inv_lw_1', number: 'INV-8101', amount: '40.00' })
  const lock = await holdMatchingLock()
  try {
    expect(await runMatchingWithin(deps(), 50)).toBeNull()
    expect(await countPendingMatches(store.db)).toBe(1)
  } finally {
    await lock.release()
  }
  expect(await runMatchingWithin(deps(), 50)).toMatchObject({ drained: 1 })
})

it('waits its turn and runs once the holder commits within the bound', async () => {
  await store.pay({ amount: '40.00', paymentReference: 'INV-8101' })
  const lock = await holdMatchingLock()
  const run = runMatchingWithin(deps(), 60_000)
  // Released once the run is seen waiting for the lock, not after a fixed time.
  await waitUntil(
    'the run waiting for the matching lock',
    async () => {
      const { rows } = await holder.query(
        `select count(*)::int as n from pg_locks
         where locktype = 'advisory' and not granted and $1 = any(pg_blocking_pids(pid))`,
        [(holder as unknown as { processID: number }).processID],
      )
      return rows[0].n > 0
    },
    { timeoutMs: 10_000, intervalMs: 10 },
  )
  await lock.release()
  expect(await run).toMatchObject({ drained: 1, inserted: 1 })
  expect(await store.events('invoice.paid')).toHaveLength(1)
})

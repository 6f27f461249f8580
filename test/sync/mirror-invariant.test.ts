import { afterEach, describe, expect, it } from 'vitest'
import { createBankChanges } from '../support/chaos/bank-changes.js'
import { startCluster, type ChaosQueue, type Cluster } from '../support/chaos/cluster.js'
import { installCursorAudit, readCursorTransitions, repeatedPages } from '../support/chaos/cursor-audit.js'
import { mirrorDifferences } from '../support/chaos/mirror-check.js'
import { quiesce } from '../support/chaos/quiesce.js'
import { chaosSeed, seededRandom, type SeededRandom } from '../support/chaos/seeded-random.js'
import { waitAtMost } from '../support/chaos/wait-until.js'
import { connectReadyBank } from '../support/sandbox-harness.js'

/** Replay a failure with CHAOS_SEED=<seed> (printed with every failure). */
const SEED = chaosSeed()
const CONNECTIONS = 3
/**
 * Three workers on Redis, two on the PostgreSQL queue: there every worker process holds ~15 database
 * connections (its pool plus BullMQ's per queue), and the test database allows 100 for every test file at once.
 */
const WORKERS = { redis: 3, postgres: 2 }
const ROUNDS = 16

const FAULTS = {
  api: { errorRate: 0.1, rateLimitRate: 0.05, retryAfterSeconds: 1, latencyMs: 40 },
  webhooks: { duplicateRate: 0.3, dropRate: 0.1, reorder: true },
}

let cluster: Cluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

describe.each<ChaosQueue>(['redis', 'postgres'])('the mirror on the %s queue', (queue) => {
  it('equals the bank row for row after seeded changes, webhook and API faults and SIGKILLed workers', async () => {
    const seed = SEED + (queue === 'redis' ? 0 : 1)
    const random = seededRandom(seed)
    const started = Date.now()
    try {
      cluster = await startCluster({
        label: `mirror_${queue}`,
        queue,
        workers: WORKERS[queue],
        sandbox: { seed },
        // Small pages make a sync long enough to be killed in the middle; a short job lock hands a killed
        // worker's job to another worker within seconds instead of BullMQ's 30.
        env: { SYNC_PAGE_SIZE: '4', JOB_LOCK_SECONDS: '3', WORKER_CONCURRENCY: '2' },
        prepareDatabase: (database) => installCursorAudit(database.db, database.schema),
      })
      const c = cluster
      const connectionIds: string[] = []
      for (let i = 0; i < CONNECTIONS; i++)
        connectionIds.push((await connectReadyBank(c.sandbox)).connection.id)

      const phases: Record<string, number> = { started: Date.now() - started }
      await c.sandbox.request('PUT', '/_sandbox/faults', { body: FAULTS })
      phases.onboarded = Date.now() - started
      const run = await runChaos(c, connectionIds, random.fork('rounds'))
      phases.chaos = Date.now() - started
      await quiesce(c, connectionIds, { timeoutMs: 45_000 })
      phases.quiescent = Date.now() - started
      console.info(`phases (ms since start): ${JSON.stringify(phases)}`)

      const truth = (await c.sandbox.request('GET', '/_sandbox/state')).body
      const deliveries = (await c.sandbox.request('GET', '/_sandbox/webhooks/deliveries')).body
        .data as Array<{
        status: string
      }>
      const transitions = await readCursorTransitions(c.database.db, c.schema)
      console.info(
        `chaos run (${queue}, seed ${seed}) in ${Math.round((Date.now() - started) / 1000)} s: ` +
          JSON.stringify({
            ...run,
            webhooksDropped: deliveries.filter((d) => d.status === 'dropped').length,
            webhooksDelivered: deliveries.filter((d) => d.status === 'delivered').length,
            pagesApplied: transitions.filter((t) => t.fromCursor !== null && t.toCursor !== null).length,
            transactions: truth.transactions.length,
          }),
      )
      expect(run.kills).toBeGreaterThan(0)
      expect(await mirrorDifferences(c.database.db, truth, connectionIds)).toEqual([])
      expect(repeatedPages(transitions)).toEqual([])
      for (const id of connectionIds) {
        const mirrored = await c.database.db
          .selectFrom('connections')
          .select('status')
          .where('id', '=', id)
          .executeTakeFirst()
        expect(mirrored?.status, `status of connection ${id}`).toBe((await c.bank.connections.get(id)).status)
      }
    } catch (error) {
      const logs = cluster?.logTails(20) ?? ''
      throw Object.assign(error as Error, {
        message: `${(error as Error).message}\n(queue ${queue}; replay with CHAOS_SEED=${SEED})\n${logs}`,
      })
    }
  }, 150_000)
})

/**
 * Rounds of seeded bank changes while the workers sync; now and then a worker is SIGKILLed (preferably one that
 * holds a sync lock, i.e. between applying a page and acknowledging its job) and restarted.
 */
async function runChaos(cluster: Cluster, connectionIds: string[], random: SeededRandom) {
  const changes = createBankChanges(cluster.sandbox, cluster.bank, random.fork('changes'))
  const restarts = new Map<number, Promise<unknown>>()
  let kills = 0
  let killsDuringSync = 0
  const transitionsSoFar = async () =>
    (await readCursorTransitions(cluster.database.db, cluster.schema)).length

  for (let round = 0; round < ROUNDS; round++) {
    const before = await transitionsSoFar()
    for (let i = random.int(1, 4); i > 0; i--) await changes.transaction(random.pick(connectionIds))
    if (random.chance(0.15)) await changes.toggleStatus(random.pick(connectionIds))
    if (random.chance(0.15)) await changes.bankSync(random.pick(connectionIds))
    if (random.chance(0.3)) await cluster.sandbox.request('POST', '/_sandbox/webhooks/flush')

    if (random.chance(0.4)) {
      let syncing: Array<{ slot: number }> = []
      await waitAtMost(1_500, async () => {
        syncing = (await cluster.syncingWorkers(connectionIds)).filter((s) => cluster.workers[s.slot])
        return syncing.length > 0
      })
      const running = cluster.workers.flatMap((w, slot) => (w ? [slot] : []))
      const slot =
        syncing.length > 0 ? random.pick(syncing).slot : running.length > 0 ? random.pick(running) : undefined
      if (slot !== undefined) {
        await cluster.killWorker(slot)
        kills++
        if (syncing.length > 0) killsDuringSync++
        const restart = cluster.startWorker(slot)
        restart.catch(() => undefined)
        restarts.set(slot, restart)
      }
    }
    // Pace the rounds by the workers' progress (a page applied), with a deadline rather than a sleep.
    await waitAtMost(1_000, async () => (await transitionsSoFar()) > before)
  }
  await Promise.all(restarts.values())
  return { rounds: ROUNDS, kills, killsDuringSync, ...changes.counts }
}

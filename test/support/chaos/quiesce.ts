import { sql } from 'kysely'
import type { Cluster } from './cluster.js'
import { waitUntil } from './wait-until.js'

/**
 * Ends the chaos: faults off, every worker slot running, pending webhooks sent, then `bankrec sync` for each
 * connection and a wait until a sync that started after that request finished for every one of them and both
 * queues are idle. After this the mirror must equal the bank.
 */
export async function quiesce(
  cluster: Cluster,
  connectionIds: readonly string[],
  options: { timeoutMs: number; log?(line: string): void },
): Promise<void> {
  const started = Date.now()
  const step = (what: string) =>
    options.log?.(`quiesce +${((Date.now() - started) / 1000).toFixed(1)} s: ${what}`)
  const deadline = Date.now() + options.timeoutMs
  const remaining = () => Math.max(1_000, deadline - Date.now())
  await cluster.sandbox.request('PUT', '/_sandbox/faults', { body: {} })
  for (const [slot, worker] of cluster.workers.entries()) if (!worker) await cluster.startWorker(slot)
  await runStepsTheBankHasDue(cluster)
  await cluster.sandbox.request('POST', '/_sandbox/webhooks/flush')
  // A job still alive from the chaos makes the request below a no-op (one job per connection); if that job then
  // fails for good (stalled twice by killed workers), nothing serves the request until the safety-net schedule.
  step(`faults off, workers up, webhooks flushed; queues ${JSON.stringify(await cluster.queueCounts())}`)
  await waitUntil('both queues to settle', () => queuesIdle(cluster), {
    timeoutMs: remaining(),
    intervalMs: 250,
    describe: () => describeSyncState(cluster, connectionIds),
  })

  step('queues settled')
  const requested = new Map(
    await Promise.all(connectionIds.map(async (id) => [id, await cluster.requestSync(id)] as const)),
  )
  step('final syncs requested')
  await waitUntil(
    'a sync started after the final request to finish on every connection',
    async () => {
      const rows = await cluster.database.db
        .selectFrom('sync_requests')
        .select(['connection_id', 'completed'])
        .where('connection_id', 'in', [...connectionIds])
        .execute()
      const served = rows.filter((r) => BigInt(r.completed) >= requested.get(r.connection_id)!)
      return served.length === connectionIds.length
    },
    { timeoutMs: remaining(), intervalMs: 250, describe: () => describeSyncState(cluster, connectionIds) },
  )
  step('final syncs done')
  // A run marks its requests served before it re-reads the connection, accounts and balances, and a caught-up run
  // soon after another's re-read owes it to a delayed job; a run in place can outlive its event's job (a job whose
  // lock lapsed under load is finished by another worker, which leaves the request to the run). No sync lock held
  // and no re-read owed means no run is still writing.
  await waitUntil(
    'both queues to be idle, no sync to be running and no re-read owed',
    // In the order a job moves (delayed, waiting, active, holding the lock), then owed again: a run that owed a
    // re-read and unlocked between the first look and the lock's is seen.
    async () =>
      (await cluster.owedRefreshes()) === 0 &&
      (await queuesIdle(cluster)) &&
      (await cluster.syncingWorkers(connectionIds)).length === 0 &&
      (await cluster.owedRefreshes()) === 0,
    { timeoutMs: remaining(), intervalMs: 250, describe: () => describeSyncState(cluster, connectionIds) },
  )
}

/** How far ahead the bank's own scheduled steps run before the final sync. */
const BANK_STEPS_HORIZON_SECONDS = 120

/**
 * Runs now what the bank has scheduled for the next two minutes: a sync still running, the delegated user's email
 * and phone provisioning (30 s and 90 s after a connection's creation), a transfer's next step. Each changes the
 * truth on its own timetable, some without a webhook (a provisioned user changes the connection's updatedAt, and so
 * that of its accounts without balances), so one falling due after the final sync would leave the mirror behind
 * through no fault of bankrec. The bank's four-hourly scheduled syncs lie beyond the horizon.
 */
async function runStepsTheBankHasDue(cluster: Cluster): Promise<void> {
  const { sandbox } = cluster.sandbox
  const nowMs = sandbox.ctx.clock.now().getTime()
  const horizonMs = nowMs + BANK_STEPS_HORIZON_SECONDS * 1000
  const due = sandbox.ctx.scheduler
    .pending()
    .map((task) => task.due.getTime())
    .filter((dueMs) => dueMs <= horizonMs)
  // Steps those steps schedule before the last one run in the same catch-up.
  if (due.length > 0) await sandbox.advance(Math.max(0, Math.max(...due) - nowMs) / 1000)
}

/** Nothing waiting or running; delayed jobs (the safety-net schedule, a 429 back-off) may remain. */
async function queuesIdle(cluster: Cluster): Promise<boolean> {
  const counts = await cluster.queueCounts()
  return Object.values(counts).every((c) => (c.wait ?? 0) + (c.active ?? 0) + (c.prioritized ?? 0) === 0)
}

/** Queue counts, sync requests and stream errors: what a timed-out wait reports. */
export async function describeSyncState(cluster: Cluster, connectionIds: readonly string[]): Promise<string> {
  const { rows } = await sql<Record<string, unknown>>`
    select r.connection_id, r.requested, r.completed, s.bootstrap_state, s.last_success_at, s.last_error
    from sync_requests r left join sync_streams s using (connection_id)
    where r.connection_id in (${sql.join(connectionIds.map((id) => sql.lit(id)))})
  `.execute(cluster.database.db)
  return [
    `queues: ${JSON.stringify(await cluster.queueCounts())}`,
    ...(await cluster.failedJobs()).map((job) => `failed job: ${JSON.stringify(job)}`),
    ...rows.map((r) => `sync state: ${JSON.stringify(r)}`),
    cluster.logTails(15),
  ].join('\n')
}

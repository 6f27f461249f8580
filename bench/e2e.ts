import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import pRetry, { AbortError } from 'p-retry'
import { APP_EVENT_LEASE_MS } from '../src/app-events/index.js'
import { createVirtualClock } from '../src/clock/index.js'
import { APP_EVENTS_QUEUE, MATCHING_QUEUE } from '../src/queue/index.js'
import { countPendingMatches } from '../src/store/index.js'
import { startAppEndpoint } from '../test/support/chaos/app-endpoint.js'
import { startCluster, type ChaosQueue } from '../test/support/chaos/cluster.js'
import { waitUntil } from '../test/support/chaos/wait-until.js'
import { connectReadyBank } from '../test/support/sandbox-harness.js'

/**
 * `npm run bench:e2e -- [--seconds 60] [--rate 50] [--queue redis|postgres|both] [--connections 4] [--busy]`: end-to-end
 * latency from the sandbox emitting `transactions.sync_available` to `invoice.paid` arriving at the app, with a
 * receiver process and two worker processes, no faults. Each payment pays one invoice in full; its latency is
 * the arrival of its invoice.paid (matched by invoice id) minus the emit of the first sync_available of its
 * connection after the payment was made. Timestamps are taken in this process (sandbox and app endpoint both
 * live here), with performance.now().
 *
 * `--busy` runs each queue twice, quiet and then with a CPU hog beside the cluster (a child process spinning on one
 * core from the first payment until every invoice.paid arrived or the wait gave up), and prints both runs.
 *
 * `BENCH_CPU_PROF=<dir>` runs every cluster process under `node --cpu-prof`, its profiles under `<dir>/<name>/`
 * (receiver, worker0, …), written when the cluster stops them with SIGTERM instead of SIGKILL; read them with
 * bench/cpu-profile-top.ts.
 *
 * On a loaded machine the bench's own set-up must not end it: the cluster's processes may take up to
 * START_TIMEOUT_MS to start, the bench's own requests (onboarding, import, payments) are retried, and a payment
 * that still fails is counted and reported, not measured, instead of ending the run.
 */
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    rate: { type: 'string', default: '50' },
    queue: { type: 'string', default: 'both' },
    connections: { type: 'string', default: '4' },
    workers: { type: 'string', default: '2' },
    busy: { type: 'boolean', default: false },
  },
})
const seconds = Number(values.seconds)
const rate = Number(values.rate)
const connectionCount = Number(values.connections)
const workerCount = Number(values.workers)
const queues: ChaosQueue[] = values.queue === 'both' ? ['redis', 'postgres'] : [values.queue as ChaosQueue]
const WARMUP_SECONDS = 3
/** Three tsx processes starting at once on two shared cores took over 60 s under a load of 30–40. */
const START_TIMEOUT_MS = 600_000

/**
 * Retries one of the bench's own requests: undici's 10 s connect timeout fires when this process or the host is
 * starved. `attempt` may run more than once, so it must be safe to repeat (the payment checks the ledger first).
 */
function retried<T>(what: string, attempt: (attemptNumber: number) => Promise<T>): Promise<T> {
  return pRetry(attempt, {
    retries: 5,
    minTimeout: 500,
    onFailedAttempt: ({ error, attemptNumber }) =>
      console.error(`${what}: attempt ${attemptNumber} failed: ${error.message}`),
  })
}

type Load = 'quiet' | 'busy'
const loads: Load[] = values.busy ? ['quiet', 'busy'] : ['quiet']

type Stats = {
  queue: ChaosQueue
  load: Load
  payments: number
  /** Payment requests the sandbox never accepted (after retries): not made, so not measured. */
  failed: number
  arrived: number
  p50: number
  p90: number
  p99: number
  max: number
}

const results: Array<Stats & { fromPayment: Stats }> = []
for (const queue of queues) for (const load of loads) results.push(await run(queue, load))
console.log('\nend-to-end latency, sync_available emitted → invoice.paid at the app (ms)')
console.table(
  results.map((r) => ({
    queue: r.queue,
    load: r.load,
    'payments/s': rate,
    seconds,
    payments: r.payments,
    failed: r.failed,
    arrived: r.arrived,
    'every payment told': r.arrived === r.payments ? 'yes' : 'NO',
    p50: r.p50,
    p90: r.p90,
    p99: r.p99,
    max: r.max,
    'p50 from payment': r.fromPayment.p50,
    'p99 from payment': r.fromPayment.p99,
  })),
)
// Issue 29's targets: every payment told in every run; quiet, PostgreSQL p50 ≤ 100 ms and p99 ≤ 300 ms, Redis
// p99 ≤ 150 ms; with one CPU hog beside the cluster, p99 ≤ 1,000 ms on both queues.
const TARGETS: Record<Load, Record<ChaosQueue, { p50: number; p99: number }>> = {
  quiet: { postgres: { p50: 100, p99: 300 }, redis: { p50: Number.POSITIVE_INFINITY, p99: 150 } },
  busy: {
    postgres: { p50: Number.POSITIVE_INFINITY, p99: 1000 },
    redis: { p50: Number.POSITIVE_INFINITY, p99: 1000 },
  },
}
for (const r of results) {
  const target = TARGETS[r.load][r.queue]
  const met = r.p50 <= target.p50 && r.p99 <= target.p99 && r.arrived === r.payments
  const p50 = Number.isFinite(target.p50) ? `p50 ≤ ${target.p50} ms, ` : ''
  const failed = r.failed > 0 ? ` (${r.failed} payment requests failed, not made)` : ''
  console.log(
    `target on ${r.queue}, ${r.load} (${p50}p99 ≤ ${target.p99} ms, every payment told): ${met ? 'met' : 'MISSED'}${failed}`,
  )
}

/** User + system CPU of a process, from /proc (Linux), in ms; 0 when it is gone or there is no /proc. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

/** A process spinning on one core until killed: the other workload of a shared machine. */
function startCpuHog(): { stop(): Promise<void> } {
  const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => hog.once('exit', () => resolve()))
  return {
    async stop() {
      hog.kill('SIGKILL')
      await exited
    },
  }
}

async function run(queue: ChaosQueue, load: Load) {
  const appSecret = `bench-app-${randomBytes(12).toString('hex')}`
  const arrivals = new Map<string, number>()
  const arrivalsWall = new Map<string, number>()
  const app = await startAppEndpoint({
    secret: appSecret,
    onEvent: (event, at) => {
      if (event.type !== 'invoice.paid') return
      arrivals.set(event.data.invoiceId, at)
      arrivalsWall.set(event.data.invoiceId, Date.now())
    },
  })
  let hog: { stop(): Promise<void> } | undefined
  const cluster = await startCluster({
    label: `bench_e2e_${queue}`,
    queue,
    workers: workerCount,
    receiverRoles: ['receiver', 'api'],
    sandbox: {
      seed: 7,
      syncAvailableDelaySeconds: 0,
      generatedActivity: false,
      clock: createVirtualClock({ followRealTime: true }),
    },
    env: { APP_WEBHOOK_URL: app.url, APP_WEBHOOK_SECRET: appSecret, LOG_LEVEL: 'warn' },
    watchQueues: [MATCHING_QUEUE, APP_EVENTS_QUEUE],
    startTimeoutMs: START_TIMEOUT_MS,
  })
  try {
    const sandbox = cluster.sandbox
    // When each connection's sync_available was emitted, in order (the hook sees the bank's own emit call).
    const emits = new Map<string, number[]>()
    const emit = sandbox.sandbox.ctx.emitEvent
    sandbox.sandbox.ctx.emitEvent = (orgId, type, data) => {
      if (type === 'transactions.sync_available') {
        const id = (data as { connectionId: string }).connectionId
        emits.set(id, [...(emits.get(id) ?? []), performance.now()])
      }
      return emit(orgId, type, data)
    }
    const accounts: Array<{ connectionId: string; accountId: string }> = []
    for (let i = 0; i < connectionCount; i++) {
      // A retry onboards a new connection; a half-onboarded one is left unused.
      const { connection, accounts: found } = await retried('onboarding', () =>
        connectReadyBank(sandbox, {
          institutionId: [
            'ins_harbor_national',
            'ins_granite_trust',
            'ins_meridian_commerce',
            'ins_cedar_valley',
          ][i % 4],
        }),
      )
      const usd = found.find((a: any) => a.currency === 'USD')
      accounts.push({ connectionId: connection.id, accountId: usd.id })
    }
    const total = Math.round(rate * (seconds + WARMUP_SECONDS))
    const invoices = Array.from({ length: total }, (_, i) => ({
      id: `bench-${i}`,
      number: `BEN-${String(i).padStart(7, '0')}`,
      amount: `${100 + (i % 900)}.${String(i % 100).padStart(2, '0')}`,
    }))
    const csv = [
      'id,number,amount,currency',
      ...invoices.map((i) => `${i.id},${i.number},${i.amount},USD`),
    ].join('\n')
    // Importing the same ids again changes nothing, so a retry is safe.
    await retried('invoice import', async () => {
      const imported = await fetch(`${cluster.receiver.url}/api/invoices/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cluster.apiToken}`, 'content-type': 'text/csv' },
        body: csv,
      })
      if (imported.ok) return
      const error = new Error(`invoice import failed: ${imported.status} ${await imported.text()}`)
      throw imported.status >= 500 ? error : new AbortError(error)
    })
    // Start from a quiet pipeline: the onboarding's syncs done, the import's matching run finished.
    await delay(3_000)

    const made: Array<{
      invoiceId: string
      connectionId: string
      at: number
      measured: boolean
      failed?: boolean
    }> = []
    // Whether the sandbox's ledger holds the payment: a retry after a request that did arrive must not pay twice.
    const ledgerHas = (reference: string) =>
      [...sandbox.sandbox.ctx.state.transactions.values()].some((t) => t.paymentReference === reference)
    // Jobs waiting in each queue and entries in matching's outbox, every 5 s while payments are made: flat means
    // the workers keep up (work done in place never waits in a queue, so the outbox shows a backlog there).
    const depths: Record<string, number[]> = {}
    const sampleDepths = async () => {
      for (const [name, counts] of Object.entries(await cluster.queueCounts()))
        (depths[name] ??= []).push(counts.waiting ?? 0)
      ;(depths.pending_matches ??= []).push(await countPendingMatches(cluster.database.db))
    }
    const sampler = setInterval(() => void sampleDepths().catch(() => undefined), 5_000)
    // CPU time is the figure a shared machine leaves steady: the cluster's processes (receiver, workers) and their
    // PostgreSQL sessions, from the first payment until every invoice.paid arrived.
    const sessionPids = async () =>
      (
        await sql<{ pid: number }>`
          select pid from pg_stat_activity where application_name like ${`${cluster.applicationName}_%`}
        `.execute(cluster.database.db)
      ).rows.map((row) => row.pid)
    const clusterPids = () => [cluster.receiver.pid, ...cluster.workers.flatMap((w) => (w ? [w.pid] : []))]
    const cpuAt = async () =>
      new Map([...clusterPids(), ...(await sessionPids())].map((pid) => [pid, processCpuMs(pid)]))
    const cpuBefore = await cpuAt()
    hog = load === 'busy' ? startCpuHog() : undefined
    const start = performance.now()
    const inFlight = new Set<Promise<unknown>>()
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate
      const wait = due - performance.now()
      if (wait > 0) await delay(wait)
      const invoice = invoices[i]!
      const account = accounts[i % accounts.length]!
      const at = performance.now()
      const payment = {
        invoiceId: invoice.id,
        connectionId: account.connectionId,
        at,
        measured: i >= rate * WARMUP_SECONDS,
      } as (typeof made)[number]
      made.push(payment)
      const request = retried(`payment ${invoice.number}`, async (attemptNumber) => {
        if (attemptNumber > 1 && ledgerHas(invoice.number)) return
        // The payment is made by the attempt that the sandbox accepts.
        payment.at = performance.now()
        const answer = await sandbox.request(
          'POST',
          `/_sandbox/connections/${account.connectionId}/transactions`,
          {
            body: {
              accountId: account.accountId,
              amount: invoice.amount,
              status: 'posted',
              paymentReference: invoice.number,
            },
          },
        )
        if (answer.status === 201) return
        const error = new Error(`payment failed: ${answer.status} ${JSON.stringify(answer.body)}`)
        throw answer.status >= 500 ? error : new AbortError(error)
      }).catch((error: unknown) => {
        payment.failed = true
        console.error(String(error))
      })
      inFlight.add(request)
      void request.finally(() => inFlight.delete(request))
    }
    await Promise.all(inFlight)
    clearInterval(sampler)
    console.log(
      `${queue} ${load} depths (waiting jobs, outbox entries, every 5 s): ${JSON.stringify(depths)}`,
    )
    const failed = made.filter((m) => m.measured && m.failed).length
    const measured = made.filter((m) => m.measured && !m.failed)
    await waitUntil('every invoice.paid to arrive', () => measured.every((m) => arrivals.has(m.invoiceId)), {
      timeoutMs: 60_000,
      intervalMs: 200,
    }).catch((error: unknown) => console.error(String(error).split('\n')[0]))
    const cpuAfter = await cpuAt()
    await hog?.stop()
    const cpuUsed = (pids: number[]) =>
      pids.reduce((sum, pid) => sum + (cpuAfter.get(pid) ?? 0) - (cpuBefore.get(pid) ?? 0), 0)
    const bankrecCpuMs = cpuUsed(clusterPids())
    const postgresCpuMs = cpuUsed([...cpuAfter.keys()].filter((pid) => !clusterPids().includes(pid)))
    console.log(
      `${queue} ${load} CPU per payment (ms, ${made.length} payments): bankrec processes ${(bankrecCpuMs / made.length).toFixed(2)}, their PostgreSQL sessions ${(postgresCpuMs / made.length).toFixed(2)}`,
    )

    const fromEmit: number[] = []
    const fromPayment: number[] = []
    for (const m of measured) {
      const arrived = arrivals.get(m.invoiceId)
      if (arrived === undefined) continue
      const emitted = (emits.get(m.connectionId) ?? []).find((t) => t >= m.at)
      if (emitted !== undefined) fromEmit.push(arrived - emitted)
      fromPayment.push(arrived - m.at)
    }
    const stats = (values: number[]): Stats => {
      const sorted = [...values].sort((a, b) => a - b)
      const at = (p: number) =>
        Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN)
      return {
        queue,
        load,
        payments: measured.length,
        failed,
        arrived: values.length,
        p50: at(50),
        p90: at(90),
        p99: at(99),
        max: at(100),
      }
    }
    const result = { ...stats(fromEmit), fromPayment: stats(fromPayment) }
    // Where the time goes, from the rows' own clocks (same host): the payment's row mirrored (`mirrored_at`, its
    // sync's page transaction), the matching run's start (the event's `createdAt`), the event leased for sending in
    // place (`lease_until` less the lease) and the arrival at the app. Segments: webhook, receiver, queue and sync
    // until the page; the page's commit, matching's outbox and lock; the run, its commit and NOTIFY; the POST.
    const { rows: events } = await sql<{ invoice_id: string; created_at: Date; lease_until: Date | null }>`
      select payload->>'invoiceId' as invoice_id, created_at, lease_until from app_events where type = 'invoice.paid'
    `.execute(cluster.database.db)
    const { rows: mirrored } = await sql<{ reference: string; mirrored_at: Date }>`
      select payment_reference as reference, mirrored_at from transactions where payment_reference like 'BEN-%'
    `.execute(cluster.database.db)
    const eventOf = new Map(events.map((r) => [r.invoice_id, r]))
    const mirroredAt = new Map(mirrored.map((r) => [r.reference, r.mirrored_at.getTime()]))
    const numberOf = new Map(invoices.map((i) => [i.id, i.number]))
    const offset = Date.now() - performance.now()
    const segments: Record<string, number[]> = {
      'emit → mirrored': [],
      'mirrored → matching starts': [],
      'matching starts → leased': [],
      'leased → arrival': [],
    }
    for (const m of measured) {
      const emitted = (emits.get(m.connectionId) ?? []).find((t) => t >= m.at)
      const event = eventOf.get(m.invoiceId)
      const arrived = arrivalsWall.get(m.invoiceId)
      const synced = mirroredAt.get(numberOf.get(m.invoiceId) ?? '')
      if (emitted === undefined || event === undefined || arrived === undefined) continue
      const created = event.created_at.getTime()
      if (synced !== undefined) {
        segments['emit → mirrored']!.push(synced - (emitted + offset))
        segments['mirrored → matching starts']!.push(created - synced)
      }
      // A row sent by the app-events queue's job (after a failed send) or sent before the lease: no lease time.
      if (event.lease_until !== null) {
        const leased = event.lease_until.getTime() - APP_EVENT_LEASE_MS
        segments['matching starts → leased']!.push(leased - created)
        segments['leased → arrival']!.push(arrived - leased)
      }
    }
    for (const [segment, values] of Object.entries(segments)) {
      const { p50, p90, p99, max, arrived } = stats(values)
      console.log(
        `${queue} ${load} breakdown, ${segment} (ms, ${arrived} payments): ${JSON.stringify({ p50, p90, p99, max })}`,
      )
    }
    console.log(`${queue} ${load}: ${JSON.stringify(result)}`)
    return result
  } finally {
    await hog?.stop()
    await cluster.close()
    await app.close()
  }
}

import { randomBytes } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import { createVirtualClock } from '../../../src/clock/index.js'
import { ALERT_DELIVERIES_QUEUE, APP_EVENTS_QUEUE, MATCHING_QUEUE } from '../../../src/queue/index.js'
import { startAlertEndpoint, type AlertEndpoint } from '../alert-endpoint.js'
import { connectReadyBank } from '../sandbox-harness.js'
import { startAppEndpoint, type AppEndpoint } from './app-endpoint.js'
import { createBankChanges } from './bank-changes.js'
import { runChaosChecks, type ChaosCheck } from './chaos-checks.js'
import { CHAOS_PROFILES, type ChaosProfile, type ChaosProfileName } from './chaos-profile.js'
import { startCluster, type ChaosQueue, type Cluster } from './cluster.js'
import { installCursorAudit } from './cursor-audit.js'
import {
  CHAOS_INVOICE_PREFIX,
  planInvoices,
  type PaymentAccount,
  type PlannedInvoice,
} from './invoice-plan.js'
import { quiesce } from './quiesce.js'
import { startPrivateRedis, type PrivateRedis } from './redis-server.js'
import { seededRandom, type SeededRandom } from './seeded-random.js'
import { waitAtMost, waitUntil } from './wait-until.js'

export type ChaosRunOptions = {
  queue: ChaosQueue
  profile: ChaosProfileName
  seed: number
  /** Progress lines (phases, injected faults as they happen). @defaultValue none */
  log?(line: string): void
}

export type ChaosRunResult = {
  queue: ChaosQueue
  profile: ChaosProfileName
  seed: number
  ok: boolean
  seconds: number
  /** Seconds since the start at which each phase ended. */
  phases: Record<string, number>
  injected: Record<string, number | string>
  checks: ChaosCheck[]
  /** Set when the run itself could not finish (a wait timed out, a process did not start): a failure too. */
  error?: string
}

export const FAULTS = {
  api: { errorRate: 0.1, rateLimitRate: 0.05, retryAfterSeconds: 1, latencyMs: 25 },
  webhooks: { duplicateRate: 0.3, dropRate: 0.1, reorder: true },
}
/** One bank per connection: the same entity at the same bank is the same connection. */
const INSTITUTIONS = [
  'ins_harbor_national',
  'ins_granite_trust',
  'ins_meridian_commerce',
  'ins_bluewater_federal',
  'ins_cedar_valley',
  'ins_northgate_capital',
  'ins_summit_pacific',
  'ins_ironbridge',
]
/** Share of app event deliveries the test app answers 503, so bankrec must retry them. */
const APP_FAIL_RATE = 0.05
const WORKERS = 3
/** How long a re-authentication episode waits for bankrec's alert, then its recovery: two safety-net syncs (30 s). */
const EPISODE_WAIT_MS = 60_000

/**
 * The chaos scenario of issue 9: a bank with several entities and connections paying a thousand or more invoices
 * (pending → posted, modified, removed, paid before the invoice existed), transfers and re-authentications, under
 * webhook and API faults, SIGKILLed workers, a Redis crash and dropped PostgreSQL sessions; then quiescence and
 * the checks of chaos-checks.ts. Seeded: the same seed plans the same invoices, payments and fault draws.
 */
export async function runChaosScenario(options: ChaosRunOptions): Promise<ChaosRunResult> {
  const profile = CHAOS_PROFILES[options.profile]
  const log = options.log ?? (() => undefined)
  const random = seededRandom(options.seed)
  const started = Date.now()
  const elapsed = () => Math.round((Date.now() - started) / 100) / 10
  const phases: Record<string, number> = {}
  const phase = (name: string) => {
    phases[name] = elapsed()
    log(`[${phases[name]} s] ${name}`)
  }
  const injected: Record<string, number | string> = {
    invoices: profile.invoices,
    workerKills: 0,
    workerKillsDuringSync: 0,
    redisCrashes: 0,
    pgSessionsTerminated: 0,
    reauthEpisodes: 0,
    transfers: 0,
    unexpectedExits: 0,
  }
  const closers: Array<() => Promise<void>> = []
  const result: ChaosRunResult = {
    queue: options.queue,
    profile: options.profile,
    seed: options.seed,
    ok: false,
    seconds: 0,
    phases,
    injected,
    checks: [],
  }
  let cluster: Cluster | undefined
  try {
    const redis: PrivateRedis | undefined = options.queue === 'redis' ? await startPrivateRedis() : undefined
    if (redis) closers.push(() => redis.close())
    const slack = await startAlertEndpoint()
    closers.push(() => slack.close())
    const appSecret = `app-secret-${randomBytes(12).toString('hex')}`
    const appRandom = random.fork('app-endpoint')
    const app = await startAppEndpoint({ secret: appSecret, failRate: APP_FAIL_RATE, random: appRandom.next })
    closers.push(() => app.close())
    const webhooks = recordWebhookAnswers()

    cluster = await startCluster({
      label: `chaos_${options.queue}`,
      queue: options.queue,
      workers: WORKERS,
      redisUrl: redis?.url,
      receiverRoles: ['receiver', 'api'],
      // The bank's clock starts at the real time: bankrec's own clock (stale-sync rules, reminders) is the real one.
      sandbox: {
        seed: options.seed,
        fetch: webhooks.fetch,
        clock: createVirtualClock({ followRealTime: true }),
      },
      watchQueues: [APP_EVENTS_QUEUE, ALERT_DELIVERIES_QUEUE, MATCHING_QUEUE],
      env: {
        SYNC_PAGE_SIZE: '100',
        JOB_LOCK_SECONDS: '3',
        WORKER_CONCURRENCY: '2',
        SYNC_INTERVAL_SECONDS: '30',
        APP_WEBHOOK_URL: app.url,
        APP_WEBHOOK_SECRET: appSecret,
        APP_EVENTS_RESCAN_SECONDS: '5',
        ALERT_SLACK_WEBHOOK_URL: slack.url,
        ALERT_TICK_SECONDS: '1',
        TRANSFER_POLL_INITIAL_SECONDS: '1',
        TRANSFER_POLL_MAX_SECONDS: '2',
        TRANSFER_SCAN_SECONDS: '1',
      },
      prepareDatabase: (database) => installCursorAudit(database.db, database.schema),
    })
    const c = cluster
    phase('cluster started')

    const entities = Array.from({ length: profile.entities }, () => crypto.randomUUID())
    const connectionIds: string[] = []
    const accounts: PaymentAccount[] = []
    for (let i = 0; i < profile.connections; i++) {
      const { connection, accounts: found } = await connectReadyBank(c.sandbox, {
        entityId: entities[i % entities.length],
        institutionId: INSTITUTIONS[i % INSTITUTIONS.length],
      })
      connectionIds.push(connection.id)
      for (const account of found) {
        if (['USD', 'EUR', 'GBP'].includes(account.currency))
          accounts.push({ connectionId: connection.id, accountId: account.id, currency: account.currency })
      }
    }
    const plan = planInvoices(random.fork('invoices'), profile.invoices, accounts)
    for (const [shape, count] of Object.entries(plan.shapes)) injected[`invoices ${shape}`] = count
    const api = sidecarApi(c)
    await api.importInvoices(plan.invoices.filter((invoice) => !invoice.late))
    phase('onboarded and invoices imported')

    await c.sandbox.request('PUT', '/_sandbox/faults', { body: FAULTS })
    const chaos = await runChaos({
      profile,
      cluster: c,
      redis,
      slack,
      api,
      random,
      plan,
      accounts,
      connectionIds,
      injected,
      log,
    })
    phase('chaos over')

    await quiesce(c, connectionIds, { timeoutMs: profile.quiesceTimeoutMs, log })
    phase('mirror quiescent')
    await settleOutbound(c, app, profile.quiesceTimeoutMs, log)
    phase('outbound settled')

    result.checks = await runChaosChecks({
      cluster: c,
      connectionIds,
      invoices: plan.invoices,
      invoicesNow: await api.listInvoices(),
      episodes: chaos.episodes,
      transfers: chaos.transfers,
      app,
      slack,
      acceptedWebhookEvents: webhooks.accepted,
      unexpectedExits: chaos.unexpectedExits,
      workerDeaths: chaos.workerDeaths,
    })
    phase('checked')
    const sent = webhooks.summary()
    const deliveries = (await c.sandbox.request('GET', '/_sandbox/webhooks/deliveries')).body.data as Array<{
      status: string
    }>
    Object.assign(injected, {
      'webhook events': new Set(deliveries.map((d: any) => d.eventId)).size,
      'webhooks dropped': deliveries.filter((d) => d.status === 'dropped').length,
      'webhook sends': sent.sends,
      'webhook sends repeated (duplicate fault or retry)': sent.repeated,
      'webhook sends refused or failed': sent.notAccepted,
      'API faults': `${FAULTS.api.errorRate * 100}% 5xx or lost answer, ${FAULTS.api.rateLimitRate * 100}% 429 (Retry-After ${FAULTS.api.retryAfterSeconds} s), ${FAULTS.api.latencyMs} ms latency`,
      'app deliveries answered 503': app.refused().injected,
      'app redeliveries ignored': app.redeliveries(),
      ...chaos.counts,
    })
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error)
    if (cluster) result.error += `\n${cluster.logTails(8)}`
  } finally {
    await cluster?.close().catch(() => undefined)
    for (const close of closers.reverse()) await close().catch(() => undefined)
  }
  result.seconds = elapsed()
  result.ok =
    !result.error && result.checks.length > 0 && result.checks.every((c) => c.violations.length === 0)
  return result
}

export type Episode = { connectionId: string; startedAt: string }
export type CreatedTransfer = { id: string; clientReference: string }

type ChaosContext = {
  profile: ChaosProfile
  cluster: Cluster
  redis: PrivateRedis | undefined
  slack: AlertEndpoint
  api: SidecarApi
  random: SeededRandom
  plan: ReturnType<typeof planInvoices>
  accounts: PaymentAccount[]
  connectionIds: string[]
  injected: Record<string, number | string>
  log(line: string): void
}

/**
 * The chaos phase: the planned payments at their times, and beside them the killer (SIGKILL a worker, preferably
 * one in the middle of a sync, and restart it), the re-authentication episodes, transfers, the bank's own
 * changes, one Redis crash and one drop of every PostgreSQL session, and a supervisor reviving crashed processes.
 */
async function runChaos(context: ChaosContext) {
  const { cluster, random, injected, log } = context
  const profile = context.profile
  const durationMs = profile.chaosSeconds * 1000
  const start = Date.now()
  const until = start + durationMs
  let failed = false
  const running = () => !failed && Date.now() < until
  const counts: Record<string, number> = {}
  const count = (what: string) => (counts[what] = (counts[what] ?? 0) + 1)
  const episodes: Episode[] = []
  const transfers: CreatedTransfer[] = []
  let unexpectedExits = 0
  const restarts = new Set<Promise<unknown>>()
  /** When a worker was killed or every session lost: the moments a send could go unrecorded (docs/reliability.md). */
  const workerDeaths: number[] = []

  const payments = async () => {
    const handles = new Map<string, string>()
    const invoices = new Map(context.plan.invoices.map((invoice) => [invoice.id, invoice]))
    const byInvoice = (id: string) => invoices.get(id)!
    for (const step of context.plan.steps) {
      if (failed) return
      const due = start + step.at * durationMs
      if (due > Date.now()) await delay(due - Date.now())
      if (failed) return
      switch (step.kind) {
        case 'pay': {
          const invoice = byInvoice(step.invoiceId)
          const created = await control(
            cluster,
            'POST',
            `/_sandbox/connections/${step.account.connectionId}/transactions`,
            {
              accountId: step.account.accountId,
              amount: step.amount,
              status: step.status,
              paymentReference: invoice.number,
              counterpartyName: invoice.customerName,
              description: 'Customer payment',
            },
          )
          handles.set(step.handle, created.id)
          count(`payments ${step.status}`)
          break
        }
        case 'settle':
        case 'modify':
        case 'remove': {
          const id = handles.get(step.handle)!
          const answer =
            step.kind === 'remove'
              ? await cluster.sandbox.request('DELETE', `/_sandbox/transactions/${id}`)
              : await cluster.sandbox.request('PATCH', `/_sandbox/transactions/${id}`, {
                  body: step.kind === 'modify' ? { amount: step.amount } : { status: 'posted' },
                })
          // The bank's own sync may have voided a pending payment first.
          if (answer.status === 404) count(`payments gone before ${step.kind}`)
          else if (answer.status >= 300) throw new Error(`${step.kind} ${id}: ${JSON.stringify(answer.body)}`)
          else
            count(
              `payments ${step.kind === 'settle' ? 'settled' : step.kind === 'modify' ? 'modified' : 'removed'}`,
            )
          break
        }
        case 'invoice':
          await context.api.putInvoice(byInvoice(step.invoiceId))
          count('invoices written after their payment')
          break
      }
    }
  }

  const killer = async () => {
    const [min, max] = profile.killEverySeconds
    while (running()) {
      await delay(random.int(min * 1000, max * 1000))
      if (!running()) break
      const syncing = (await cluster.syncingWorkers(context.connectionIds)).filter(
        (s) => cluster.workers[s.slot],
      )
      const up = cluster.workers.flatMap((w, slot) => (w ? [slot] : []))
      const slot =
        syncing.length > 0 ? random.pick(syncing).slot : up.length > 0 ? random.pick(up) : undefined
      if (slot === undefined) continue
      workerDeaths.push(Date.now())
      await cluster.killWorker(slot)
      injected.workerKills = Number(injected.workerKills) + 1
      if (syncing.length > 0) injected.workerKillsDuringSync = Number(injected.workerKillsDuringSync) + 1
      const restart = cluster
        .startWorker(slot)
        .catch((error: unknown) => log(`restart of worker${slot} failed: ${String(error)}`))
      restarts.add(restart)
      void restart.finally(() => restarts.delete(restart))
    }
  }

  const supervisor = async () => {
    while (running()) {
      await delay(500)
      if (restarts.size > 0) continue
      const revived = await cluster.reviveExited()
      if (revived.length > 0) {
        unexpectedExits += revived.length
        injected.unexpectedExits = unexpectedExits
        log(`supervisor restarted ${revived.join(', ')} (exited by itself)`)
      }
    }
  }

  const noticesOf = (connectionId: string, type: 'alert' | 'recovery') =>
    context.slack.received.filter(
      (r) => r.raw.includes(connectionId) && new RegExp(`:${type}\\b`).test(r.raw),
    ).length
  const reauth = async () => {
    const inEpisode = new Set<string>()
    const tasks: Promise<void>[] = []
    for (let i = 0; i < profile.reauthEpisodes; i++) {
      const due = start + ((i + 0.5) / profile.reauthEpisodes) * durationMs * 0.8
      if (due > Date.now()) await delay(due - Date.now())
      if (failed) return
      const free = context.connectionIds.filter((id) => !inEpisode.has(id))
      if (free.length === 0) continue
      const connectionId = random.pick(free)
      inEpisode.add(connectionId)
      const alertsBefore = noticesOf(connectionId, 'alert')
      const recoveriesBefore = noticesOf(connectionId, 'recovery')
      const connection = await control(cluster, 'POST', `/_sandbox/connections/${connectionId}/status`, {
        status: 'reauthRequired',
        errorCode: 'password_expired',
      })
      episodes.push({ connectionId, startedAt: connection.updatedAt })
      injected.reauthEpisodes = episodes.length
      log(`connection ${connectionId} → reauthRequired`)
      // Back to active once bankrec has alerted, and free for another episode once it has seen the recovery (each
      // within a bound): two episodes never blur into one incident because no poll fell between them. The bound is
      // two safety-net intervals (SYNC_INTERVAL_SECONDS), which catch a dropped status webhook: at 15 s, a machine
      // at load 30 turned an episode back to active before bankrec had seen it (seed 1714564714, PostgreSQL queue).
      tasks.push(
        (async () => {
          const alerted = () => noticesOf(connectionId, 'alert') > alertsBefore
          if (!(await waitAtMost(EPISODE_WAIT_MS, alerted, 250)))
            log(`connection ${connectionId}: no alert yet`)
          await delay(1_000)
          await control(cluster, 'POST', `/_sandbox/connections/${connectionId}/status`, { status: 'active' })
          log(`connection ${connectionId} → active`)
          const recovered = () => noticesOf(connectionId, 'recovery') > recoveriesBefore
          if (!(await waitAtMost(EPISODE_WAIT_MS, recovered, 250)))
            log(`connection ${connectionId}: no recovery yet`)
          inEpisode.delete(connectionId)
        })(),
      )
    }
    await Promise.all(tasks)
  }

  const transfersTask = async () => {
    const usd = context.accounts.filter((a) => a.currency === 'USD')
    for (let i = 0; i < profile.transfers && usd.length > 1; i++) {
      const due = start + ((i + 0.3) / profile.transfers) * durationMs * 0.7
      if (due > Date.now()) await delay(due - Date.now())
      if (failed) return
      const source = random.pick(usd)
      const destination = random.pick(usd.filter((a) => a !== source))
      const clientReference = `TRF-${random.int(100_000, 999_999)}-${i}`
      const transfer = await context.api.createTransfer(
        {
          type: 'internal',
          transferType: 'internal',
          amount: {
            type: 'money',
            value: `${random.int(1, 200)}.${String(random.int(0, 99)).padStart(2, '0')}`,
            currency: 'USD',
          },
          sourceAccountId: source.accountId,
          destination: { type: 'account', accountId: destination.accountId },
          clientReference,
          memo: 'chaos transfer',
          skipPreflight: true,
        },
        `chaos-transfer-${random.seed}-${i}`,
      )
      transfers.push({ id: transfer.id, clientReference })
      injected.transfers = transfers.length
    }
  }

  const bankActivity = async () => {
    const changes = createBankChanges(cluster.sandbox, cluster.bank, random.fork('bank'), {
      eligible: (t) => !t.paymentReference?.includes(CHAOS_INVOICE_PREFIX),
    })
    const total = profile.otherChanges + profile.bankSyncs
    let bankSyncs = 0
    for (let i = 0; i < total; i++) {
      const due = start + ((i + 0.5) / total) * durationMs * 0.85
      if (due > Date.now()) await delay(due - Date.now())
      if (failed) return
      if (i % Math.ceil(total / Math.max(1, profile.bankSyncs)) === 0 && bankSyncs < profile.bankSyncs) {
        // The bank's own sync; it moves the bank's clock past the 45-minute cooldown first.
        await changes.bankSync(random.pick(context.connectionIds))
        bankSyncs++
      } else {
        await changes.transaction(random.pick(context.connectionIds))
      }
    }
    for (const [kind, n] of Object.entries(changes.counts))
      if (n > 0) counts[kind.startsWith('bankSync') ? `bank: ${kind}` : `other transactions: ${kind}`] = n
  }

  const infrastructure = async () => {
    await delay(durationMs * 0.4)
    if (failed) return
    if (context.redis) {
      log('Redis: SIGKILL and restart')
      await context.redis.crashAndRestart()
      injected.redisCrashes = 1
    }
    await delay(durationMs * 0.2)
    if (failed) return
    workerDeaths.push(Date.now())
    const ended = await cluster.terminateDatabaseSessions()
    injected.pgSessionsTerminated = ended
    log(`PostgreSQL: ${ended} bankrec sessions terminated`)
  }

  const tasks = [payments, killer, supervisor, reauth, transfersTask, bankActivity, infrastructure].map(
    (task) =>
      task().catch((error: unknown) => {
        failed = true
        throw error
      }),
  )
  const settled = await Promise.allSettled(tasks)
  const failure = settled.find((s) => s.status === 'rejected')
  if (failure) throw failure.reason
  await Promise.all(restarts)
  const revived = await cluster.reviveExited()
  unexpectedExits += revived.length
  injected.unexpectedExits = unexpectedExits
  return { episodes, transfers, unexpectedExits, counts, workerDeaths }
}

/** After the mirror is quiet: matching's outbox drained, every app event and alert delivered, transfers settled. */
async function settleOutbound(
  cluster: Cluster,
  app: AppEndpoint,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<void> {
  const db = cluster.database.db
  let lastLog = Date.now()
  await waitUntil(
    'matching, app events, alerts and transfers to settle',
    async () => {
      const pending = await db
        .selectFrom('pending_matches')
        .select(db.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
      const undelivered = await db
        .selectFrom('app_events')
        .select(db.fn.countAll<string>().as('n'))
        .where('delivered_at', 'is', null)
        .executeTakeFirstOrThrow()
      const alerts = await db
        .selectFrom('alert_deliveries')
        .select(db.fn.countAll<string>().as('n'))
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow()
      const transfers = await db
        .selectFrom('transfers')
        .select(db.fn.countAll<string>().as('n'))
        .where('status', 'not in', ['completed', 'failed', 'returned', 'cancelled'])
        .executeTakeFirstOrThrow()
      const counts = await cluster.queueCounts()
      const busy = Object.values(counts).some(
        (c) => (c.wait ?? 0) + (c.active ?? 0) + (c.prioritized ?? 0) > 0,
      )
      if (Date.now() - lastLog > 5_000) {
        lastLog = Date.now()
        log(
          `waiting for: ${JSON.stringify({ pendingMatches: pending.n, undeliveredAppEvents: undelivered.n, pendingAlerts: alerts.n, openTransfers: transfers.n, busy })}`,
        )
      }
      return Number(pending.n) + Number(undelivered.n) + Number(alerts.n) + Number(transfers.n) === 0 && !busy
    },
    {
      timeoutMs,
      intervalMs: 500,
      describe: async () =>
        `queues: ${JSON.stringify(await cluster.queueCounts())}; app processed ${app.processed.size}\n${cluster.logTails(10)}`,
    },
  )
}

export type SidecarApi = ReturnType<typeof sidecarApi>

/** bankrec's own HTTP API on the receiver process, retried through a dropped database session or a restart. */
function sidecarApi(cluster: Cluster) {
  const call = async (
    method: string,
    path: string,
    body?: string,
    contentType = 'application/json',
    headers: Record<string, string> = {},
  ) => {
    let last = ''
    for (let attempt = 1; attempt <= 20; attempt++) {
      try {
        const response = await fetch(`${cluster.receiver.url}/api${path}`, {
          method,
          headers: { authorization: `Bearer ${cluster.apiToken}`, 'content-type': contentType, ...headers },
          body,
        })
        const text = await response.text()
        if (response.ok) return JSON.parse(text)
        last = `${response.status} ${text.slice(0, 300)}`
        if (response.status < 500) break
      } catch (error) {
        last = String(error)
      }
      await delay(250 * attempt)
    }
    throw new Error(`${method} /api${path} failed: ${last}`)
  }
  return {
    importInvoices: (invoices: PlannedInvoice[]) =>
      call('POST', '/invoices/import', invoiceCsv(invoices), 'text/csv'),
    putInvoice: (invoice: PlannedInvoice) =>
      call('PUT', `/invoices/${invoice.id}`, JSON.stringify(invoiceBody(invoice)), 'application/json'),
    createTransfer: (body: Record<string, unknown>, idempotencyKey: string) =>
      call('POST', '/transfers', JSON.stringify(body), 'application/json', {
        'idempotency-key': idempotencyKey,
      }),
    async listInvoices(): Promise<any[]> {
      const all: any[] = []
      let cursor: string | null = null
      do {
        const page: any = await call(
          'GET',
          `/invoices?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        )
        all.push(...page.data)
        cursor = page.pagination.hasMore ? page.pagination.nextCursor : null
      } while (cursor)
      return all
    },
  }
}

function invoiceBody(invoice: PlannedInvoice) {
  return {
    number: invoice.number,
    amount: invoice.amount,
    currency: invoice.currency,
    customerName: invoice.customerName,
  }
}

function invoiceCsv(invoices: PlannedInvoice[]): string {
  const lines = ['id,number,amount,currency,customerName']
  for (const i of invoices) lines.push([i.id, i.number, i.amount, i.currency, i.customerName].join(','))
  return `${lines.join('\n')}\n`
}

async function control(cluster: Cluster, method: string, path: string, body?: unknown): Promise<any> {
  const answer = await cluster.sandbox.request(method, path, body === undefined ? {} : { body })
  if (answer.status >= 300)
    throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`)
  return answer.body
}

/** Wraps the sandbox's webhook fetch: which event ids bankrec's receiver accepted (2xx), and how often each was sent. */
function recordWebhookAnswers() {
  const accepted = new Set<string>()
  const sends = new Map<string, number>()
  let notAccepted = 0
  const recording: typeof fetch = async (input, init) => {
    const id = typeof init?.body === 'string' ? (JSON.parse(init.body) as { id?: string }).id : undefined
    if (id) sends.set(id, (sends.get(id) ?? 0) + 1)
    try {
      const response = await fetch(input, init)
      if (response.ok && id) accepted.add(id)
      else notAccepted++
      return response
    } catch (error) {
      notAccepted++
      throw error
    }
  }
  return {
    fetch: recording,
    accepted,
    summary: () => ({
      sends: [...sends.values()].reduce((a, b) => a + b, 0),
      repeated: [...sends.values()].filter((n) => n > 1).length,
      notAccepted,
    }),
  }
}

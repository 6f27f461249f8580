/**
 * `npm run bench:sync [-- --rows N]`: end-to-end sync throughput, from the sandbox (in-process, on 127.0.0.1)
 * through the api-client into the PostgreSQL mirror in 500-event pages (runConnectionSync with bankSyncSource),
 * against a baseline in the same run that upserts the same rows straight into the same PostgreSQL in batches
 * of 500 (upsertTransactions). Then the memory of a sync and of a CSV export over the whole mirror.
 *
 * Targets: end-to-end ≥ 20,000 tx/s and ≥ 50% of the baseline; memory flat (it does not grow with the mirror).
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); each run uses schemas of its own, dropped after.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import { parseArgs } from 'node:util'
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks'
import { sql } from 'kysely'
import {
  BankCursorExpiredError,
  BankInvalidCursorError,
  createBankClient,
  type BankClient,
  type Transaction,
} from '../src/api-client/index.js'
import { createVirtualClock } from '../src/clock/index.js'
import { bankSyncSource, exportMirror, runConnectionSync } from '../src/reconcile/index.js'
import { createSandbox, type Sandbox } from '../src/sandbox/index.js'
import { addTransaction } from '../src/sandbox/ledger.js'
import {
  createDatabase,
  migrateToLatest,
  transactionToRow,
  upsertTransactions,
  type StoreDatabase,
} from '../src/store/index.js'

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    'skip-baseline': { type: 'boolean', default: false },
  },
})
const ROWS = Number(values.rows)
if (!Number.isSafeInteger(ROWS) || ROWS < 500) throw new Error('--rows must be a whole number ≥ 500')
const PAGE = 500
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

type Peak = { rssMb: number; heapMb: number }
type Measured<T> = {
  result: T
  seconds: number
  cpuSeconds: number
  peak: Peak
  before: Peak
  /** Heap still in use after the work and a full GC, minus before (with --expose-gc). */
  retainedMb?: number
  /** The largest heap in use right after a major GC during the work: the live set, without garbage. */
  liveMb: number
  majorGcs: number
}

const gc = (globalThis as { gc?: () => void }).gc
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024)

/**
 * Runs `work`, sampling RSS and heap every 20 ms: its result, its duration, this process's CPU time and the
 * peaks. The peaks include garbage not yet collected; `retainedMb` is what the work left behind.
 */
async function measured<T>(work: () => Promise<T>): Promise<Measured<T>> {
  const sample = () => {
    const m = process.memoryUsage()
    return { rssMb: mb(m.rss), heapMb: mb(m.heapUsed) }
  }
  gc?.()
  const before = sample()
  const peak = { ...before }
  let liveMb = before.heapMb
  let majorGcs = 0
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } }
      if (detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue
      majorGcs++
      liveMb = Math.max(liveMb, mb(process.memoryUsage().heapUsed))
    }
  })
  gcs.observe({ entryTypes: ['gc'] })
  const timer = setInterval(() => {
    const now = sample()
    peak.rssMb = Math.max(peak.rssMb, now.rssMb)
    peak.heapMb = Math.max(peak.heapMb, now.heapMb)
  }, 20)
  const started = process.hrtime.bigint()
  const cpu = process.cpuUsage()
  try {
    const result = await work()
    const used = process.cpuUsage(cpu)
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    gc?.()
    const retainedMb = gc ? mb(process.memoryUsage().heapUsed) - before.heapMb : undefined
    return {
      result,
      seconds,
      cpuSeconds: (used.user + used.system) / 1e6,
      peak,
      before,
      retainedMb,
      liveMb,
      majorGcs,
    }
  } finally {
    clearInterval(timer)
    gcs.disconnect()
  }
}

async function openSchema(label: string): Promise<StoreDatabase> {
  const store = createDatabase({
    connectionString: DATABASE_URL,
    schema: `bench_sync_${label}_${randomBytes(3).toString('hex')}`,
  })
  await migrateToLatest(store.db, store.schema)
  return store
}

async function dropSchema(store: StoreDatabase): Promise<void> {
  await sql`drop schema if exists ${sql.id(store.schema)} cascade`.execute(store.db)
  await store.db.destroy()
}

async function readyConnection(
  sandbox: Sandbox,
  client: BankClient,
): Promise<{ id: string; accountId: string }> {
  const created = await client.connections.create({
    entityId: randomUUID(),
    institutionId: 'ins_harbor_national',
  })
  await client.connections.submitCredentials(created.id, { bankUsername: 'delegate', password: 'bench' })
  await client.connections.completeSetup(created.id)
  await sandbox.advance(sandbox.ctx.settings.activationSeconds + sandbox.ctx.settings.syncDurationSeconds)
  const accounts = await client.accounts.list({ connectionId: created.id })
  return { id: created.id, accountId: accounts.data[0]!.id }
}

/** N new transactions at the bank, straight into the sandbox ledger (no webhooks: the bench drives the sync). */
function seed(sandbox: Sandbox, connectionId: string, accountId: string, n: number): string[] {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const id = randomUUID()
    const cents = (i % 100_000) + 1
    addTransaction(
      sandbox.ctx,
      {
        id,
        connectionId,
        accountId,
        postedDate: `2026-0${1 + (i % 2)}-${String(1 + (i % 28)).padStart(2, '0')}`,
        amount: `${i % 3 === 0 ? '-' : ''}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
        currency: 'USD',
        description: `Bench payment ${i}, "quoted"`,
        rawDescription: `ACH CREDIT BENCH ${i}`,
        customerReference: `CUST-${i}`,
        bankReference: `BR${i}`,
        paymentReference: `INV-${100_000 + i}`,
        baiCode: '195',
        category: 'income',
        subcategory: 'invoice',
        mcc: null,
        merchantName: null,
        counterpartyName: 'Bench Customer Ltd',
        counterpartyAccountMasked: '••4321',
        status: i % 10 === 0 ? 'pending' : 'posted',
        entryType: i % 3 === 0 ? 'debit' : 'credit',
        rail: 'ach',
      },
      { notify: false },
    )
    ids.push(id)
  }
  return ids
}

const nullSink = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done()
    },
  })

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

async function main(): Promise<void> {
  const clock = createVirtualClock({ start: new Date('2026-03-02T09:00:00Z'), followRealTime: false })
  const sandbox = createSandbox({ clock, scheduledSyncIntervalSeconds: 0 })
  const url = await sandbox.listen({ port: 0, host: '127.0.0.1' })
  const client = createBankClient({ baseUrl: url, apiKey: sandbox.apiKey })
  const e2e = await openSchema('e2e')
  const base = await openSchema('base')
  try {
    const connection = await readyConnection(sandbox, client)
    const deps = {
      db: e2e.db,
      source: bankSyncSource(client),
      clock,
      pageSize: PAGE,
      isCursorExpired: (e: unknown) => e instanceof BankCursorExpiredError,
      isCursorInvalid: (e: unknown) => e instanceof BankInvalidCursorError,
    }
    // The stream exists before the load, so every benchmarked row travels as a sync event.
    const bootstrap = await runConnectionSync(deps, connection.id)
    const seedStarted = Date.now()
    const ids = seed(sandbox, connection.id, connection.accountId, ROWS)
    console.log(
      `seeded ${fmt(ROWS)} transactions in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s ` +
        `(mirror bootstrapped with ${bootstrap.upserted} generated ones)`,
    )

    const profiler = process.env.BENCH_PROFILE
      ? new (await import('node:inspector/promises')).Session()
      : undefined
    if (profiler) {
      profiler.connect()
      await profiler.post('Profiler.enable')
      await profiler.post('Profiler.start')
    }
    const sync = await measured(() => runConnectionSync(deps, connection.id))
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop')
      ;(await import('node:fs')).writeFileSync(process.env.BENCH_PROFILE!, JSON.stringify(profile))
    }
    if (sync.result.upserted !== ROWS)
      throw new Error(`the sync applied ${sync.result.upserted} rows, not ${ROWS}`)
    const e2eRate = ROWS / sync.seconds

    let baseline: Measured<void> | undefined
    if (!values['skip-baseline']) {
      const row = (id: string) => {
        const { orgId, entityId, createdSeq, seq, eventId, eventAt, ...tx } =
          sandbox.ctx.state.transactions.get(id)!
        void [orgId, entityId, createdSeq, seq, eventAt]
        return transactionToRow(tx as Transaction, eventId)
      }
      baseline = await measured(async () => {
        for (let i = 0; i < ids.length; i += PAGE)
          await upsertTransactions(base.db, ids.slice(i, i + PAGE).map(row))
      })
    }
    const baseRate = baseline ? ROWS / baseline.seconds : undefined

    const exported = await measured(() =>
      exportMirror(e2e.db, { connectionId: connection.id, format: 'csv' }, nullSink()),
    )
    const mirrored = Number(
      (await sql<{ n: string }>`select count(*) as n from transactions`.execute(e2e.db)).rows[0]!.n,
    )

    console.log(
      `\nsync bench: ${fmt(ROWS)} transactions, ${PAGE}-event pages, mirror holds ${fmt(mirrored)} rows`,
    )
    const cpu = (m: Measured<unknown>) =>
      `${m.seconds.toFixed(2)} s, this process's CPU ${m.cpuSeconds.toFixed(2)} s`
    console.log(`  end-to-end (sandbox → client → mirror): ${fmt(e2eRate)} tx/s  (${cpu(sync)})`)
    if (baseline && baseRate !== undefined) {
      console.log(
        `  baseline (upsertTransactions × ${PAGE}):       ${fmt(baseRate)} tx/s  (${cpu(baseline)})`,
      )
      console.log(`  ratio end-to-end / baseline:             ${((e2eRate / baseRate) * 100).toFixed(0)}%`)
    }
    console.log(
      `  targets: ≥ 20,000 tx/s ${e2eRate >= 20_000 ? 'met' : 'NOT met'}` +
        (baseRate !== undefined ? `; ≥ 50% of baseline ${e2eRate >= baseRate / 2 ? 'met' : 'NOT met'}` : ''),
    )
    const show = (name: string, m: Measured<unknown>) =>
      console.log(
        `  ${name}: heap ${m.before.heapMb} → peak ${m.peak.heapMb} MB (+${m.peak.heapMb - m.before.heapMb}), ` +
          `live heap after ${m.majorGcs} major GCs ≤ ${m.liveMb} MB (+${m.liveMb - m.before.heapMb}), ` +
          `RSS ${m.before.rssMb} → peak ${m.peak.rssMb} MB (+${m.peak.rssMb - m.before.rssMb})` +
          (m.retainedMb !== undefined ? `, retained after GC ${m.retainedMb} MB` : ''),
      )
    show('memory during the sync  ', sync)
    show(`memory during CSV export of ${fmt(exported.result.rows)} rows`, exported)
  } finally {
    await dropSchema(e2e)
    await dropSchema(base)
    await sandbox.close()
  }
}

await main()

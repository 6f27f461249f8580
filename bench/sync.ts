/**
 * `npm run bench:sync [-- --rows N]`: end-to-end sync throughput, from the sandbox (a process of its own,
 * bench/sync-bank-process.ts, on 127.0.0.1) through the api-client into the PostgreSQL mirror in 500-event pages
 * (runConnectionSync over the API client), against a baseline that upserts the same rows straight into the same
 * PostgreSQL in batches of 500 (upsertTransactions). Then the memory of a sync and of a CSV export over the mirror.
 *
 * The two sides run in BENCH_ROUNDS rounds (default 3). Each round is a fresh stream (a new connection at the bank,
 * ROWS new transactions seeded for it) synced into a fresh schema, and the same rows upserted by the baseline into
 * another fresh schema; the side that goes first alternates from round to round. A round prints its figures (rates,
 * the page cycle's waits, CPU a page per process) and its ratio, taken within the round because a shared machine
 * drifts between rounds; the median round's ratio and rate decide the targets, and the CPU a page of each process
 * is given as the median of the rounds, the steadier figure for comparing builds. The memory figures are the last
 * round's sync and a CSV export of its mirror. BENCH_PROFILE=<file>: a V8 CPU profile of the first round's sync.
 *
 * Targets: end-to-end ≥ 20,000 tx/s and ≥ 50% of the baseline (issue 29: ≥ 75%); memory flat (it does not grow
 * with the mirror). DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); each round uses schemas of its
 * own, dropped after.
 */
import { execFileSync, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks'
import { Kysely, PostgresDialect, sql } from 'kysely'
import { BankCursorExpiredError, BankInvalidCursorError, createBankClient } from '../src/api-client/index.js'
import { createVirtualClock } from '../src/clock/index.js'
import { runConnectionSync, transactionToRow } from '../src/sync/index.js'
import { exportMirror } from '../src/mirror-export/index.js'
import {
  createDatabase,
  migrateToLatest,
  upsertTransactions,
  type Database,
  type StoreDatabase,
} from '../src/store/index.js'
import type { BankAnswer, BankRequest } from './sync-bank-process.js'

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    'skip-baseline': { type: 'boolean', default: false },
  },
})
const ROWS = Number(values.rows)
if (!Number.isSafeInteger(ROWS) || ROWS < 500) throw new Error('--rows must be a whole number ≥ 500')
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
if (!Number.isSafeInteger(ROUNDS) || ROUNDS < 1) throw new Error('BENCH_ROUNDS must be a whole number ≥ 1')
const PAGE = 500
const BASELINE_CHUNK = 20_000
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
/** /proc/<pid>/stat counts CPU in clock ticks. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100
  } catch {
    return 100
  }
})()

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
  const schema = `bench_sync_${label}_${randomBytes(3).toString('hex')}`
  // Named after its schema, so that backendCpu finds the pool's PostgreSQL backends.
  const url = new URL(DATABASE_URL)
  url.searchParams.set('application_name', schema)
  const store = createDatabase({ connectionString: url.toString(), schema })
  await migrateToLatest(store.db, store.schema)
  return store
}

async function dropSchema(store: StoreDatabase): Promise<void> {
  await sql`drop schema if exists ${sql.id(store.schema)} cascade`.execute(store.db)
  await store.db.destroy()
}

type BankProcess = {
  request<K extends BankAnswer['kind']>(
    request: DistributiveOmit<BankRequest, 'id'>,
    expected: K,
  ): Promise<Extract<BankAnswer, { kind: K }>>
  close(): Promise<void>
}
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** Starts bench/sync-bank-process.ts: the sandbox in a process of its own, driven over IPC. */
async function startBankProcess(): Promise<BankProcess> {
  const child = fork(fileURLToPath(new URL('./sync-bank-process.ts', import.meta.url)), {
    execArgv: [
      '--import',
      'tsx',
      // BENCH_PROFILE_BANK=<dir>: a V8 CPU profile of the bank process, written when it exits.
      ...(process.env.BENCH_PROFILE_BANK
        ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE_BANK]
        : []),
    ],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const waiting = new Map<number, { resolve: (answer: BankAnswer) => void; reject: (e: Error) => void }>()
  let nextId = 0
  child.on('message', (answer: BankAnswer) => {
    waiting.get(answer.id)?.resolve(answer)
    waiting.delete(answer.id)
  })
  child.on('exit', (code) => {
    for (const { reject } of waiting.values()) reject(new Error(`the bank process exited (${code})`))
    waiting.clear()
  })
  return {
    async request(request, expected) {
      const id = nextId++
      const answer = await new Promise<BankAnswer>((resolve, reject) => {
        waiting.set(id, { resolve, reject })
        child.send({ ...request, id })
      })
      if (answer.kind === 'failed') throw new Error(`the bank process failed: ${answer.message}`)
      if (answer.kind !== expected)
        throw new Error(`the bank process answered ${answer.kind}, not ${expected}`)
      return answer as Extract<BankAnswer, { kind: typeof expected }>
    },
    async close() {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.disconnect()
      await exited
    },
  }
}

/**
 * The CPU time so far of the PostgreSQL backends serving `store`'s pool, per backend pid, read from /proc: with
 * PostgreSQL on this host, the database's share of a phase whatever else the machine runs. Undefined elsewhere.
 */
async function backendCpu(store: StoreDatabase): Promise<Map<number, number> | undefined> {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity where application_name = ${store.schema}
  `.execute(store.db)
  const ticks = new Map<number, number>()
  try {
    for (const { pid } of rows) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      ticks.set(pid, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS)
    }
  } catch {
    return undefined
  }
  return ticks
}

/** Seconds of backend CPU between two backendCpu readings (backends opened meanwhile started at 0). */
function backendSeconds(before?: Map<number, number>, after?: Map<number, number>): number | undefined {
  if (!before || !after) return undefined
  let seconds = 0
  for (const [pid, now] of after) seconds += now - (before.get(pid) ?? 0)
  return seconds
}

/**
 * Where the sync's page cycle waits, summed over the run: the writer's wait for the store (each statement, from
 * its call to its result as the event loop sees it), each page's fetch (the sync call, from the request to the page
 * parsed and validated) split at the HTTP exchange (undici's diagnostics channels: request sent, response headers
 * received), so a page's time shows as the request's dispatch, the bank's answer and the body read + parse.
 */
type PageCycle = { store: number; fetch: number; dispatch: number; bank: number; body: number; pages: number }

function instrumentedSync(
  deps: { db: Kysely<Database>; client: ReturnType<typeof createBankClient> },
  pool: StoreDatabase['pool'],
): { deps: typeof deps; cycle: PageCycle; stop(): void } {
  const cycle: PageCycle = { store: 0, fetch: 0, dispatch: 0, bank: 0, body: 0, pages: 0 }
  let called = 0
  let sent = 0
  let answered = 0
  let on = true
  // One sync request is in flight at a time (each needs the cursor of the page before), so the marks pair up.
  const sendHeaders = () => {
    if (!on || called === 0) return
    sent = performance.now()
    cycle.dispatch += sent - called
    called = 0
  }
  const headers = () => {
    if (!on || sent === 0) return
    answered = performance.now()
    cycle.bank += answered - sent
    sent = 0
  }
  subscribe('undici:client:sendHeaders', sendHeaders)
  subscribe('undici:request:headers', headers)
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (on) cycle.store += event.queryDurationMillis
    },
  })
  const sync: typeof deps.client.transactions.sync = async (...args) => {
    const started = performance.now()
    called = started
    const page = await deps.client.transactions.sync(...args)
    const done = performance.now()
    cycle.fetch += done - started
    cycle.body += done - answered
    cycle.pages++
    return page
  }
  const client = { ...deps.client, transactions: { ...deps.client.transactions, sync } }
  return {
    deps: { ...deps, db, client },
    cycle,
    stop() {
      on = false
      unsubscribe('undici:client:sendHeaders', sendHeaders)
      unsubscribe('undici:request:headers', headers)
    },
  }
}

const nullSink = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done()
    },
  })

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

type Connection = { id: string; accountId: string }
type SyncDeps = Parameters<typeof runConnectionSync>[0] & {
  db: Kysely<Database>
  client: ReturnType<typeof createBankClient>
}

/** One round's sync of the stream's ROWS new events: its measure, the CPU of PostgreSQL and the bank, its waits. */
type SyncPhase = {
  sync: Measured<Awaited<ReturnType<typeof runConnectionSync>>>
  dbCpu: number | undefined
  bankCpu: number
  cycle: PageCycle
}
/** One round's baseline: the same rows upserted straight into PostgreSQL (timed parts only). */
type BaselinePhase = { seconds: number; cpuSeconds: number; dbCpu: number | undefined }
type Round = { sync: SyncPhase; baseline: BaselinePhase | undefined; e2eRate: number; baseRate?: number }

async function syncPhase(
  bank: BankProcess,
  e2e: StoreDatabase,
  deps: SyncDeps,
  connection: Connection,
  profile: string | undefined,
): Promise<SyncPhase> {
  const profiler = profile ? new (await import('node:inspector/promises')).Session() : undefined
  if (profiler) {
    profiler.connect()
    await profiler.post('Profiler.enable')
    await profiler.post('Profiler.start')
  }
  const bankCpuBefore = await bank.request({ kind: 'cpu' }, 'cpu')
  const dbBefore = await backendCpu(e2e)
  const instrumented = instrumentedSync(deps, e2e.pool)
  const sync = await measured(() => runConnectionSync({ ...deps, ...instrumented.deps }, connection.id))
  instrumented.stop()
  const bankCpu = (await bank.request({ kind: 'cpu' }, 'cpu')).seconds - bankCpuBefore.seconds
  const dbCpu = backendSeconds(dbBefore, await backendCpu(e2e))
  if (profiler) {
    const { profile: written } = await profiler.post('Profiler.stop')
    writeFileSync(profile!, JSON.stringify(written))
  }
  if (sync.result.upserted !== ROWS)
    throw new Error(`the sync applied ${sync.result.upserted} rows, not ${ROWS}`)
  return { sync, dbCpu, bankCpu, cycle: instrumented.cycle }
}

/** The round's seeded rows (the bank's `first`…`first + ROWS`), upserted in pages of PAGE. */
async function baselinePhase(bank: BankProcess, base: StoreDatabase, first: number): Promise<BaselinePhase> {
  const dbBefore = await backendCpu(base)
  // The rows come over IPC in chunks outside the timed part: only the upserts are the baseline.
  let seconds = 0
  let cpuSeconds = 0
  for (let from = first; from < first + ROWS; from += BASELINE_CHUNK) {
    const { rows } = await bank.request(
      { kind: 'transactions', from, to: Math.min(first + ROWS, from + BASELINE_CHUNK) },
      'transactions',
    )
    const chunk = await measured(async () => {
      for (let i = 0; i < rows.length; i += PAGE)
        await upsertTransactions(
          base.db,
          rows.slice(i, i + PAGE).map((row) => transactionToRow(row.transaction, row.eventId)),
        )
    })
    seconds += chunk.seconds
    cpuSeconds += chunk.cpuSeconds
  }
  return { seconds, cpuSeconds, dbCpu: backendSeconds(dbBefore, await backendCpu(base)) }
}

function printRound(label: string, { sync: phase, baseline, e2eRate, baseRate }: Round): void {
  const { sync, dbCpu, bankCpu, cycle } = phase
  console.log(`\n${label}`)
  const cpu = (m: { seconds: number; cpuSeconds: number }, db: number | undefined) =>
    `${m.seconds.toFixed(2)} s, this process's CPU ${m.cpuSeconds.toFixed(2)} s` +
    (db === undefined ? '' : `, PostgreSQL's ${db.toFixed(2)} s`)
  console.log(
    `  end-to-end (sandbox → client → mirror): ${fmt(e2eRate)} tx/s  (${cpu(sync, dbCpu)}, ` +
      `the bank process's ${bankCpu.toFixed(2)} s; ${availableParallelism()} CPUs)`,
  )
  const perPage = (ms: number) => (ms / sync.result.pagesApplied).toFixed(2)
  console.log(
    `  page cycle (${sync.result.pagesApplied} pages, ms a page): ${perPage(sync.seconds * 1000)} wall, of which ` +
      `the writer waited ${perPage(cycle.store)} on the store and ${perPage(sync.seconds * 1000 - cycle.store)} ` +
      `otherwise (for pages, mostly); a page's fetch ${perPage(cycle.fetch)} = dispatch ` +
      `${perPage(cycle.dispatch)} + the bank's answer ${perPage(cycle.bank)} + body and parse ${perPage(cycle.body)}`,
  )
  console.log(
    `  CPU a page (ms): this process ${perPage(sync.cpuSeconds * 1000)}` +
      (dbCpu === undefined ? '' : `, PostgreSQL ${perPage(dbCpu * 1000)}`) +
      `, the bank ${perPage(bankCpu * 1000)}` +
      (baseline
        ? `; baseline: this process ${((baseline.cpuSeconds * 1000 * PAGE) / ROWS).toFixed(2)}` +
          (baseline.dbCpu === undefined
            ? ''
            : `, PostgreSQL ${((baseline.dbCpu * 1000 * PAGE) / ROWS).toFixed(2)}`) +
          `, wall ${((baseline.seconds * 1000 * PAGE) / ROWS).toFixed(2)}`
        : ''),
  )
  if (!baseline || baseRate === undefined) return
  console.log(
    `  baseline (upsertTransactions × ${PAGE}):       ${fmt(baseRate)} tx/s  (${cpu(baseline, baseline.dbCpu)})`,
  )
  console.log(`  ratio end-to-end / baseline:             ${((e2eRate / baseRate) * 100).toFixed(0)}%`)
  // What a deployment sees, where the bank is not on the sidecar's CPUs: bankrec's CPU (this process and
  // PostgreSQL) per transaction against the baseline's.
  if (dbCpu !== undefined && baseline.dbCpu !== undefined) {
    const bankrecCpu = sync.cpuSeconds + dbCpu
    const baseCpu = baseline.cpuSeconds + baseline.dbCpu
    console.log(
      `  bankrec's CPU / baseline's CPU:           ${bankrecCpu.toFixed(2)} s / ${baseCpu.toFixed(2)} s = ` +
        `${(bankrecCpu / baseCpu).toFixed(2)}× (this process + PostgreSQL; the bank's not counted)`,
    )
  }
}

/** The verdict: the median round's ratio and rate, and the CPU a page each process took, as medians of the rounds. */
function printMedians(rounds: readonly Round[]): void {
  const e2eRate = median(rounds.map((r) => r.e2eRate))
  const ratios = rounds.flatMap((r) => (r.baseRate === undefined ? [] : [r.e2eRate / r.baseRate]))
  const perPage = (pick: (r: Round) => number | undefined) => {
    const values = rounds.map(pick).filter((v): v is number => v !== undefined)
    return values.length === rounds.length ? median(values).toFixed(2) : undefined
  }
  const pages = (r: Round) => r.sync.sync.result.pagesApplied
  const pageCpu = [
    ['this process', perPage((r) => (r.sync.sync.cpuSeconds * 1000) / pages(r))],
    [
      'PostgreSQL',
      perPage((r) => (r.sync.dbCpu === undefined ? undefined : (r.sync.dbCpu * 1000) / pages(r))),
    ],
    ['the bank', perPage((r) => (r.sync.bankCpu * 1000) / pages(r))],
  ].filter(([, v]) => v !== undefined)
  console.log(`\nmedian of ${rounds.length} rounds:`)
  console.log(
    `  end-to-end ${fmt(e2eRate)} tx/s; page cycle ${perPage((r) => (r.sync.sync.seconds * 1000) / pages(r))} ms; ` +
      `CPU a page (ms): ${pageCpu.map(([name, v]) => `${name} ${v}`).join(', ')}`,
  )
  const ratio = ratios.length > 0 ? median(ratios) : undefined
  if (ratio !== undefined)
    console.log(
      `  ratio end-to-end / baseline: ${(ratio * 100).toFixed(0)}% ` +
        `(rounds: ${ratios.map((q) => `${(q * 100).toFixed(0)}%`).join(', ')})`,
    )
  console.log(
    `  targets (median round): ≥ 20,000 tx/s ${e2eRate >= 20_000 ? 'met' : 'NOT met'}` +
      (ratio !== undefined
        ? `; ≥ 50% of baseline ${ratio >= 0.5 ? 'met' : 'NOT met'}; issue 29's ≥ 75% ${ratio >= 0.75 ? 'met' : 'NOT met'}`
        : ''),
  )
}

function showMemory(name: string, m: Measured<unknown>): void {
  console.log(
    `  ${name}: heap ${m.before.heapMb} → peak ${m.peak.heapMb} MB (+${m.peak.heapMb - m.before.heapMb}), ` +
      `live heap after ${m.majorGcs} major GCs ≤ ${m.liveMb} MB (+${m.liveMb - m.before.heapMb}), ` +
      `RSS ${m.before.rssMb} → peak ${m.peak.rssMb} MB (+${m.peak.rssMb - m.before.rssMb})` +
      (m.retainedMb !== undefined ? `, retained after GC ${m.retainedMb} MB` : ''),
  )
}

async function main(): Promise<void> {
  const clock = createVirtualClock({ start: new Date('2026-03-02T09:00:00Z'), followRealTime: false })
  const bank = await startBankProcess()
  const open: StoreDatabase[] = []
  const rounds: Round[] = []
  try {
    let last: { e2e: StoreDatabase; connection: Connection; sync: Measured<unknown> } | undefined
    for (let r = 0; r < ROUNDS; r++) {
      // A fresh stream (a new connection at the bank) into fresh schemas: every round starts from the same state.
      if (last) await dropSchema(open.splice(open.indexOf(last.e2e), 1)[0]!)
      const e2e = await openSchema('e2e')
      open.push(e2e)
      const ready = await bank.request({ kind: 'ready' }, 'ready')
      const client = createBankClient({ baseUrl: ready.url, apiKey: ready.apiKey })
      const connection = { id: ready.connectionId, accountId: ready.accountId }
      const deps: SyncDeps = {
        db: e2e.db,
        client,
        clock,
        pageSize: PAGE,
        isCursorExpired: (e: unknown) => e instanceof BankCursorExpiredError,
        isCursorInvalid: (e: unknown) => e instanceof BankInvalidCursorError,
      }
      // The stream exists before the load, so every benchmarked row travels as a sync event.
      const bootstrap = await runConnectionSync(deps, connection.id)
      const seeded = await bank.request({ kind: 'seed', count: ROWS }, 'seeded')
      console.log(
        `round ${r + 1}: seeded ${fmt(ROWS)} transactions in ${seeded.seconds.toFixed(1)} s in the bank's process ` +
          `(mirror bootstrapped with ${bootstrap.upserted} generated ones)`,
      )
      const firstRow = r * ROWS
      const runSync = () =>
        syncPhase(bank, e2e, deps, connection, r === 0 ? process.env.BENCH_PROFILE : undefined)
      const runBaseline = async () => {
        if (values['skip-baseline']) return undefined
        const base = await openSchema('base')
        open.push(base)
        try {
          return await baselinePhase(bank, base, firstRow)
        } finally {
          await dropSchema(open.splice(open.indexOf(base), 1)[0]!)
        }
      }
      // Sides alternate which goes first, so neither always runs after the other's writes (autovacuum, checkpoints).
      let sync: SyncPhase
      let baseline: BaselinePhase | undefined
      if (r % 2 === 0) {
        sync = await runSync()
        baseline = await runBaseline()
      } else {
        baseline = await runBaseline()
        sync = await runSync()
      }
      const round: Round = {
        sync,
        baseline,
        e2eRate: ROWS / sync.sync.seconds,
        ...(baseline ? { baseRate: ROWS / baseline.seconds } : {}),
      }
      rounds.push(round)
      printRound(`round ${r + 1} (${r % 2 === 0 ? 'sync first' : 'baseline first'})`, round)
      last = { e2e, connection, sync: sync.sync }
    }
    printMedians(rounds)

    const { e2e, connection } = last!
    const exported = await measured(() =>
      exportMirror(e2e.db, { connectionId: connection.id, format: 'csv' }, nullSink()),
    )
    const mirrored = Number(
      (await sql<{ n: string }>`select count(*) as n from transactions`.execute(e2e.db)).rows[0]!.n,
    )
    console.log(`\nmemory (the last round; its mirror holds ${fmt(mirrored)} rows):`)
    showMemory('memory during the sync  ', last!.sync)
    showMemory(`memory during CSV export of ${fmt(exported.result.rows)} rows`, exported)
  } finally {
    for (const store of open) await dropSchema(store)
    await bank.close()
  }
}

await main()

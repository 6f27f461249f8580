/**
 * `npm run bench:receiver`: each receiver against the least its job needs, measured in the same run with the same
 * native load generator, wrk (separate process, so it never shares the server's event loop), on loopback only.
 * Every request is a fresh ~800-byte delivery with a unique event id, signed by bench/wrk/signed-deliveries.lua.
 *
 * The baseline is the minimal correct receiver (bench/minimal-receiver/server.ts, its own process): node:http, raw
 * body with a size cap, constant-time HMAC, JSON, and a 2xx only after a durable write group-committed per
 * event-loop turn (Redis: SET NX + RPUSH in one script call; PostgreSQL: INSERT … ON CONFLICT DO NOTHING).
 *
 *   redis    (m) minimal receiver on Redis                            — baseline
 *            (d) `bankrec receiver` process, DATABASE_URL + REDIS_URL  — target ≥ 70% of (m), p99 ≤ 10 ms, no non-2xx
 *            (l) library createReceiverServer, Redis queue (in-process) — reported against (m)
 *   postgres (m) minimal receiver on PostgreSQL                       — baseline
 *            (d) `bankrec receiver` process, DATABASE_URL, no REDIS_URL — target ≥ 70% of (m), p99 ≤ 10 ms
 *   express  (b) bare express route: express.raw, verify, group-committed Redis write (the minimal one) — baseline
 *            (w) express + createWebhookMiddleware, Redis queue       — target ≥ 120% of (b)
 *            (c) express route that reads the body and answers 202, no verify, no write — the ceiling of any
 *                middleware mounted in express: what express's own work a request leaves room for
 *
 * The deployed processes run as docs/deployment.md sets them up (NODE_ENV=production, DATABASE_URL,
 * BANKREC_SECRET_KEY, REDIS_URL for the Redis queue, WEBHOOK_SECRETS, a BANK_API_URL that is never called), through
 * tsx like the chaos cluster. Every server is started once; all of them then run in turn BENCH_ROUNDS times, and the
 * ratios are taken within a round (a shared machine drifts between rounds), the median round deciding. Beside
 * req/s it prints each server process's CPU time per request (from /proc; Redis and PostgreSQL not counted) and the
 * share that gives, the steadier figure when other processes take the CPUs.
 *
 * Options (environment): BENCH_SECONDS (default 10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (32),
 * BENCH_ROUNDS (3), BENCH_ONLY (comma-separated groups: redis,postgres,express; default all), BENCH_CPU_PROF (a
 * directory: the `bankrec receiver` processes and the minimal receivers run with `node --cpu-prof` and write their
 * profiles under it when they stop, `<dir>/receiver-redis/CPU.<date>.<time>.<pid>.0.001.cpuprofile` for the main
 * thread, so both sides of a share can be compared), REDIS_URL (redis://127.0.0.1:6379),
 * TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test).
 * Needs wrk on the PATH (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk).
 */
import { execFile, execFileSync, spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import express from 'express'
import { Redis } from 'ioredis'
import { createRedisWebhookEventQueue } from '../src/queue/index.js'
import { createReceiverServer, createWebhookMiddleware } from '../src/receiver/index.js'
import {
  createTestDatabase,
  dropSidecarSchemas,
  TEST_DATABASE_URL,
  TEST_SECRET_KEY,
} from '../test/support/test-database.js'
import {
  createPostgresInboxTable,
  createRedisInbox,
  type DurableInbox,
} from './minimal-receiver/durable-inbox.js'
import { BODY_LIMIT_BYTES, createMinimalDelivery, readCappedBody } from './minimal-receiver/handler.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const ONLY = new Set((process.env.BENCH_ONLY ?? 'redis,postgres,express').split(','))
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const SECRET = 'whsec_bench_7b1e'
const BODY_BYTES = 800
const SCRIPT = fileURLToPath(new URL('./wrk/signed-deliveries.lua', import.meta.url))
const MINIMAL = fileURLToPath(new URL('./minimal-receiver/server.ts', import.meta.url))
const CLI = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))
const run = promisify(execFile)

/** What the wrk script prints when a run ends. */
type WrkResult = {
  requests: number
  durationUs: number
  non2xx: number
  socketErrors: number
  p50Us: number
  p99Us: number
  maxUs: number
}

type Measured = {
  rate: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** Non-2xx answers plus socket errors, wrk's 2 s timeout included. */
  failed: number
  /** CPU time of the server's process per answered request (Redis and PostgreSQL not included). */
  cpuUsPerRequest: number
}

/** A server under test: its /webhooks URL, the CPU time its process has used so far, and how to stop it. */
type Running = { url: string; cpuMicros(): number; stop(): Promise<void> }

/** User + system CPU of another process, from /proc (Linux), in µs; NaN where there is no /proc. */
function processCpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (USER_HZ, 100 on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100
  } catch {
    return Number.NaN
  }
}

/** This process's CPU, for the servers that run in it (the bench itself only waits for wrk meanwhile). */
const ownCpuMicros = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}

type Group = 'redis' | 'postgres' | 'express'

type Phase = {
  group: Group
  label: string
  /** Baseline of its group (the first phase of each group). */
  baseline?: true
  /** The target share of the group's baseline, when there is one. */
  target?: number
  start(): Promise<Running>
}

function requireWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
  } catch (error) {
    // wrk prints its usage and exits 1 on --version; only a missing binary is a problem.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error(
        'bench:receiver needs wrk on the PATH: apt-get install wrk (Debian/Ubuntu) or brew install wrk.',
      )
      process.exit(1)
    }
  }
}

async function wrk(url: string, seconds: number): Promise<WrkResult> {
  const idPrefix = `evt_${randomUUID().slice(0, 12)}`
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', SCRIPT, url, '--', SECRET, idPrefix]
  const { stdout } = await run('wrk', [...args, String(BODY_BYTES)], { maxBuffer: 1024 * 1024 })
  const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'))
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`)
  return JSON.parse(line) as WrkResult
}

async function load(server: Running): Promise<Measured> {
  await wrk(server.url, WARMUP_SECONDS)
  const cpuBefore = server.cpuMicros()
  const r = await wrk(server.url, SECONDS)
  const cpu = server.cpuMicros() - cpuBefore
  return {
    cpuUsPerRequest: cpu / Math.max(1, r.requests - r.non2xx - r.socketErrors),
    rate: r.requests / (r.durationUs / 1e6),
    p50Ms: r.p50Us / 1000,
    p99Ms: r.p99Us / 1000,
    maxMs: r.maxUs / 1000,
    failed: r.non2xx + r.socketErrors,
  }
}

async function listen(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    cpuMicros: ownCpuMicros,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
    },
  }
}

/**
 * A server as its own process, through tsx (like the chaos cluster's bankrec processes): resolves once it prints
 * `listening on <base URL>`. Its output goes to `<logDir>/<name>.log`; stop() is SIGTERM and waits for the exit
 * (so a `--cpu-prof` profile gets written).
 */
async function startProcess(name: string, nodeArgs: string[], env: Record<string, string>): Promise<Running> {
  const log = createWriteStream(path.join(logDir, `${name}.log`))
  const child = spawn(process.execPath, [...nodeArgs], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stderr!.pipe(log)
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (http:\/\/[^\s/]+)/.exec(out)
      if (match) resolve(`${match[1]}/webhooks`)
    })
    void exited.then(() => {
      const logged = readFileSync(path.join(logDir, `${name}.log`), 'utf8').slice(-2000)
      reject(new Error(`${name} exited before listening:\n${out}${logged}`))
    })
  })
  return {
    url,
    cpuMicros: () => processCpuMicros(child.pid!),
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Removes every Redis key under a prefix. */
async function dropRedisPrefix(prefix: string): Promise<void> {
  const connection = new Redis(REDIS_URL)
  for await (const keys of connection.scanStream({ match: `${prefix}:*`, count: 1000 })) {
    if ((keys as string[]).length > 0) await connection.unlink(...(keys as string[]))
  }
  connection.disconnect()
}

const suffix = randomBytes(4).toString('hex')
const logDir = mkdtempSync(path.join(tmpdir(), 'bankrec-bench-receiver-'))
const redisPrefixes: string[] = []
const schemas: string[] = []

/**
 * With BENCH_CPU_PROF, node's flags that write a process's CPU profiles to `<BENCH_CPU_PROF>/<name>/` when it
 * stops: one per thread (tsx's module loader has its own), node's default names, the main thread's with tid 0.
 */
const profiled = (name: string): string[] =>
  CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(CPU_PROF_DIR, name)}`] : []

/** `bankrec receiver` as deployed: its own process and schema, on the Redis queue or (no REDIS_URL) PostgreSQL's. */
async function startDeployed(queue: 'redis' | 'postgres'): Promise<Running> {
  const database = await createTestDatabase(`bench_receiver_${queue}`)
  schemas.push(database.schema)
  await database.db.destroy()
  const prefix = `bench-deployed-${queue}-${suffix}`
  if (queue === 'redis') redisPrefixes.push(prefix)
  const args = [...profiled(`receiver-${queue}`), '--import', 'tsx', CLI, 'receiver']
  return startProcess(`receiver-${queue}`, args, {
    // A real bank's URL: no sandbox in the process. The receiver role never calls it.
    BANK_API_URL: 'http://127.0.0.1:9',
    BANK_API_KEY: 'bench-unused',
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: database.schema,
    QUEUE_PREFIX: prefix,
    ...(queue === 'redis' ? { REDIS_URL } : {}),
    WEBHOOK_SECRETS: SECRET,
    PORT: '0',
    HOST: '127.0.0.1',
  })
}

async function minimalRedis(): Promise<Running> {
  const prefix = `bench-minimal-${suffix}`
  redisPrefixes.push(prefix)
  return startProcess('minimal-redis', [...profiled('minimal-redis'), '--import', 'tsx', MINIMAL], {
    MINIMAL_SECRET: SECRET,
    MINIMAL_QUEUE: 'redis',
    REDIS_URL,
    MINIMAL_PREFIX: prefix,
  })
}

async function minimalPostgres(): Promise<Running> {
  const database = await createTestDatabase('bench_receiver_minimal')
  schemas.push(database.schema)
  await database.db.destroy()
  const table = `${database.schema}.minimal_inbox`
  await createPostgresInboxTable(TEST_DATABASE_URL, table)
  return startProcess('minimal-postgres', [...profiled('minimal-postgres'), '--import', 'tsx', MINIMAL], {
    MINIMAL_SECRET: SECRET,
    MINIMAL_QUEUE: 'postgres',
    DATABASE_URL: TEST_DATABASE_URL,
    MINIMAL_TABLE: table,
  })
}

async function library(): Promise<Running> {
  const prefix = `bench-library-${suffix}`
  redisPrefixes.push(prefix)
  const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, forward: false })
  const receiver = createReceiverServer({ secrets: [SECRET], queue })
  const url = `${await receiver.listen({ port: 0 })}/webhooks`
  return {
    url,
    cpuMicros: ownCpuMicros,
    async stop() {
      receiver.server.closeAllConnections()
      await receiver.close()
      await queue.close()
    },
  }
}

/** A bare express route doing the middleware's work with the minimal parts: raw body, verify, durable write. */
async function bareExpress(): Promise<Running> {
  const prefix = `bench-bare-express-${suffix}`
  redisPrefixes.push(prefix)
  const inbox: DurableInbox = createRedisInbox(REDIS_URL, prefix)
  const deliver = createMinimalDelivery(SECRET, inbox)
  const app = express()
  app.post('/webhooks', express.raw({ type: '*/*', limit: BODY_LIMIT_BYTES }), (req, res) => {
    deliver(req, res, req.body as Buffer)
  })
  const running = await listen(createServer(app))
  return {
    ...running,
    async stop() {
      await running.stop()
      await inbox.close()
    },
  }
}

/** The most any express middleware can reach: the route reads the body and answers, nothing else. */
async function expressCeiling(): Promise<Running> {
  const app = express()
  app.post('/webhooks', (req, res) => {
    readCappedBody(req, res, () => {
      res.writeHead(202, { 'content-length': 0 })
      res.end()
    })
  })
  return listen(createServer(app))
}

async function expressMiddleware(): Promise<Running> {
  const prefix = `bench-middleware-${suffix}`
  redisPrefixes.push(prefix)
  const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, forward: false })
  const app = express()
  const middleware = createWebhookMiddleware({ secrets: [SECRET], queue })
  app.post('/webhooks', middleware)
  const running = await listen(createServer(app))
  return {
    ...running,
    async stop() {
      await running.stop()
      await middleware.flush()
      await queue.close()
    },
  }
}

const PHASES: Phase[] = (
  [
    { group: 'redis', label: 'minimal receiver, Redis', baseline: true, start: minimalRedis },
    { group: 'redis', label: '`bankrec receiver`, Redis', target: 0.7, start: () => startDeployed('redis') },
    { group: 'redis', label: 'library createReceiverServer, Redis', start: library },
    { group: 'postgres', label: 'minimal receiver, PostgreSQL', baseline: true, start: minimalPostgres },
    {
      group: 'postgres',
      label: '`bankrec receiver`, PostgreSQL',
      target: 0.7,
      start: () => startDeployed('postgres'),
    },
    { group: 'express', label: 'bare express route, Redis', baseline: true, start: bareExpress },
    { group: 'express', label: 'express + middleware, Redis', target: 1.2, start: expressMiddleware },
    { group: 'express', label: 'express route doing nothing (ceiling)', start: expressCeiling },
  ] satisfies Phase[]
).filter((phase) => ONLY.has(phase.group))

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
}

const fixed = (n: number, digits = 1) => n.toFixed(digits)
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!
const baselineOf = (phase: Phase) => PHASES.findIndex((p) => p.group === phase.group && p.baseline)

async function main(): Promise<void> {
  requireWrk()
  process.stdout.write(
    `receiver benchmark ${new Date().toISOString()}: wrk, ${CONNECTIONS} connections, ${BODY_BYTES}-byte signed ` +
      `bodies with unique ids, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per server, ${ROUNDS} rounds, loopback\n`,
  )
  const running: Running[] = []
  try {
    for (const phase of PHASES) running.push(await phase.start())
    const rounds: Measured[][] = []
    const widths = [38, 8, 8, 8, 8, 8, 10, 9, 9]
    const header = [
      'server',
      'req/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'failed',
      'CPU µs/req',
      'share',
      'CPU share',
    ]
    for (let r = 1; r <= ROUNDS; r++) {
      const round: Measured[] = []
      for (const server of running) round.push(await load(server))
      rounds.push(round)
      process.stdout.write(`\nround ${r}\n${row(header, widths)}\n`)
      PHASES.forEach((phase, i) => {
        const m = round[i]!
        const base = round[baselineOf(phase)]!
        const share = phase.baseline ? 'baseline' : `${fixed((m.rate / base.rate) * 100)}%`
        const cpuShare = phase.baseline ? '' : `${fixed((base.cpuUsPerRequest / m.cpuUsPerRequest) * 100)}%`
        const cells = [phase.label, fixed(m.rate, 0), fixed(m.p50Ms, 2), fixed(m.p99Ms, 2), fixed(m.maxMs, 1)]
        const cpu = fixed(m.cpuUsPerRequest, 0)
        process.stdout.write(`${row([...cells, String(m.failed), cpu, share, cpuShare], widths)}\n`)
      })
    }
    process.stdout.write(`\nmedian of ${ROUNDS} rounds (share of its group's baseline in the same round):\n`)
    PHASES.forEach((phase, i) => {
      if (phase.baseline) return
      const share = median(rounds.map((round) => round[i]!.rate / round[baselineOf(phase)]!.rate))
      const worstP99 = Math.max(...rounds.map((round) => round[i]!.p99Ms))
      const failed = rounds.reduce((n, round) => n + round[i]!.failed, 0)
      const cpuShare = median(
        rounds.map((round) => round[baselineOf(phase)]!.cpuUsPerRequest / round[i]!.cpuUsPerRequest),
      )
      const verdict =
        phase.target === undefined
          ? ''
          : phase.group === 'express'
            ? `; target ≥ ${phase.target * 100}%: ${share >= phase.target ? 'met' : 'NOT met'}`
            : `; target ≥ ${phase.target * 100}%, p99 ≤ 10 ms, no non-2xx: ` +
              `${share >= phase.target && worstP99 <= 10 && failed === 0 ? 'met' : 'NOT met'}`
      process.stdout.write(
        `  ${phase.label}: ${fixed(share * 100)}% of the req/s (${fixed(cpuShare * 100)}% by server CPU per ` +
          `request), worst p99 ${fixed(worstP99, 2)} ms, failed (non-2xx or wrk socket error/2 s timeout) ${failed}${verdict}\n`,
      )
    })
  } finally {
    for (const server of running) await server.stop().catch(() => undefined)
    for (const prefix of redisPrefixes) await dropRedisPrefix(prefix).catch(() => undefined)
    await dropSidecarSchemas(...schemas).catch(() => undefined)
    rmSync(logDir, { recursive: true, force: true })
  }
}

await main()

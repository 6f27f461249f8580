/**
 * `npm run bench:receiver`: the receiver's throughput against baselines measured in the same run with the same
 * load generator, wrk (a native one, so the baselines are not capped by the generator), on loopback only. Every
 * request is a fresh delivery with a unique event id, signed by bench/wrk/signed-deliveries.lua.
 *
 *   (a) bare node:http server that only reads the body        — baseline for (b)
 *   (b) standalone receiver: verify + dedupe + enqueue to Redis — target ≥ 35% of (a), p99 ≤ 10 ms, no non-2xx
 *   (c) bare express 5 route that only reads the raw body      — baseline for (d)
 *   (d) express + createWebhookMiddleware, enqueue to Redis    — target ≥ 80% of (c)
 *
 * The four run in turn, BENCH_ROUNDS times; ratios are taken within a round and the median round decides, because a
 * shared machine drifts between rounds. (b) and (d) run as `bankrec receiver` does, without forwarding the inbox
 * into BullMQ (the workers do); the forwarding rate is measured after (b) on what it queued.
 *
 * BENCH_SECONDS (default 10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),
 * REDIS_URL (redis://127.0.0.1:6379). Needs wrk on the PATH (Debian/Ubuntu: apt-get install wrk; macOS: brew).
 */
import { execFile, execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import express from 'express'
import { Redis } from 'ioredis'
import { createInboxForwarder, createRedisWebhookEventQueue } from '../src/queue/index.js'
import { createReceiverServer, createWebhookMiddleware } from '../src/receiver/index.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const SECRET = 'whsec_bench_7b1e'
const BODY_BYTES = 800
const SCRIPT = fileURLToPath(new URL('./wrk/signed-deliveries.lua', import.meta.url))
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

type Measured = { rate: number; p50Ms: number; p99Ms: number; maxMs: number; failed: number }

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
  const { stdout } = await run(
    'wrk',
    [
      '-t1',
      `-c${CONNECTIONS}`,
      `-d${seconds}s`,
      '-s',
      SCRIPT,
      url,
      '--',
      SECRET,
      idPrefix,
      String(BODY_BYTES),
    ],
    { maxBuffer: 1024 * 1024 },
  )
  const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'))
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`)
  return JSON.parse(line) as WrkResult
}

async function load(url: string): Promise<Measured> {
  await wrk(url, WARMUP_SECONDS)
  const r = await wrk(url, SECONDS)
  return {
    rate: r.requests / (r.durationUs / 1e6),
    p50Ms: r.p50Us / 1000,
    p99Ms: r.p99Us / 1000,
    maxMs: r.maxUs / 1000,
    failed: r.non2xx + r.socketErrors,
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`
}

async function stop(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  server.closeAllConnections()
  await closed
}

/** Removes every key a bench queue wrote: the whole prefix, inbox and seen keys included. */
async function dropQueue(prefix: string): Promise<void> {
  const connection = new Redis(REDIS_URL)
  for await (const keys of connection.scanStream({ match: `${prefix}:*`, count: 1000 })) {
    if ((keys as string[]).length > 0) await connection.unlink(...(keys as string[]))
  }
  connection.disconnect()
}

async function bareNode(): Promise<Measured> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      Buffer.concat(chunks)
      res.writeHead(202, { 'content-type': 'application/json', 'content-length': 2 })
      res.end('{}')
    })
  })
  const url = await listen(server)
  try {
    return await load(url)
  } finally {
    await stop(server)
  }
}

/** Events forwarded per second from the inbox into BullMQ, after (b). */
const forwardRates: number[] = []

async function standalone(): Promise<Measured> {
  const prefix = `bench-${randomUUID().slice(0, 8)}`
  const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, forward: false })
  const receiver = createReceiverServer({ secrets: [SECRET], queue })
  const url = `${await receiver.listen({ port: 0 })}/webhooks`
  let measured: Measured
  try {
    measured = await load(url)
  } finally {
    receiver.server.closeAllConnections()
    await receiver.close()
    await queue.close()
  }
  const forwarder = createInboxForwarder({ url: REDIS_URL, prefix })
  try {
    const started = performance.now()
    const moved = await forwarder.forwardPending()
    forwardRates.push(moved / ((performance.now() - started) / 1000))
    return measured
  } finally {
    await forwarder.close()
    await dropQueue(prefix)
  }
}

async function bareExpress(): Promise<Measured> {
  const app = express()
  app.post('/webhooks', express.raw({ type: '*/*', limit: '256kb' }), (_req, res) => {
    res.status(202).json({})
  })
  const server = createServer(app)
  const url = await listen(server)
  try {
    return await load(url)
  } finally {
    await stop(server)
  }
}

async function expressMiddleware(): Promise<Measured> {
  const prefix = `bench-${randomUUID().slice(0, 8)}`
  const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, forward: false })
  const app = express()
  const middleware = createWebhookMiddleware({ secrets: [SECRET], queue })
  app.post('/webhooks', middleware)
  const server = createServer(app)
  const url = await listen(server)
  try {
    return await load(url)
  } finally {
    await stop(server)
    await middleware.flush()
    await queue.close()
    await dropQueue(prefix)
  }
}

const PHASES = [
  ['(a) bare node:http, reads body', bareNode],
  ['(b) standalone receiver + Redis', standalone],
  ['(c) bare express 5 + express.raw', bareExpress],
  ['(d) express + middleware + Redis', expressMiddleware],
] as const

type Round = [Measured, Measured, Measured, Measured]

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
}

const fixed = (n: number, digits = 1) => n.toFixed(digits)
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!

async function main(): Promise<void> {
  requireWrk()
  process.stdout.write(
    `receiver benchmark: wrk, ${CONNECTIONS} connections, ${BODY_BYTES}-byte signed bodies with unique ids, ` +
      `${WARMUP_SECONDS} s warm-up + ${SECONDS} s per server, ${ROUNDS} rounds, loopback\n`,
  )
  const rounds: Round[] = []
  const widths = [34, 9, 8, 8, 8, 8, 14]
  for (let r = 1; r <= ROUNDS; r++) {
    const round: Measured[] = []
    for (const [, phase] of PHASES) round.push(await phase())
    rounds.push(round as Round)
    const [a, b, c, d] = round as Round
    const ratio = [`${fixed((b.rate / a.rate) * 100)}% of (a)`, `${fixed((d.rate / c.rate) * 100)}% of (c)`]
    process.stdout.write(
      `\nround ${r}\n${row(['server', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'ratio'], widths)}\n`,
    )
    round.forEach((m, i) => {
      process.stdout.write(
        `${row(
          [
            PHASES[i]![0],
            fixed(m.rate, 0),
            fixed(m.p50Ms, 2),
            fixed(m.p99Ms, 2),
            fixed(m.maxMs, 1),
            String(m.failed),
            i === 1 ? ratio[0]! : i === 3 ? ratio[1]! : '',
          ],
          widths,
        )}\n`,
      )
    })
  }
  const standaloneRatio = median(rounds.map(([a, b]) => b.rate / a.rate))
  const middlewareRatio = median(rounds.map(([, , c, d]) => d.rate / c.rate))
  const worstP99 = Math.max(...rounds.map(([, b]) => b.p99Ms))
  const failed = rounds.reduce((n, [, b]) => n + b.failed, 0)
  process.stdout.write(
    `\nmedian of ${ROUNDS} rounds: (b)/(a) ${fixed(standaloneRatio * 100)}%, (b) worst p99 ${fixed(worstP99, 2)} ms, ` +
      `(b) non-2xx ${failed}; (d)/(c) ${fixed(middlewareRatio * 100)}%\n` +
      `inbox → BullMQ forwarding after (b): ${forwardRates.map((n) => fixed(n, 0)).join(', ')} events/s\n`,
  )
  const standaloneOk = standaloneRatio >= 0.35 && worstP99 <= 10 && failed === 0
  process.stdout.write(
    `targets: (b) ≥ 35% of (a), p99 ≤ 10 ms, no non-2xx: ${standaloneOk ? 'met' : 'NOT met'}; ` +
      `(d) ≥ 80% of (c): ${middlewareRatio >= 0.8 ? 'met' : 'NOT met'}\n`,
  )
}

await main()

/**
 * `npm run bench:receiver`: the receiver's throughput against baselines measured in the same run with the same
 * load generator (a keep-alive node:http client in a worker thread), on loopback only.
 *
 *   (a) bare node:http server that only reads the body        — baseline for (b)
 *   (b) standalone receiver: verify + dedupe + enqueue to Redis — target ≥ 35% of (a), p99 ≤ 10 ms, no non-2xx
 *   (c) bare express 5 route that only reads the raw body      — baseline for (d)
 *   (d) express + createWebhookMiddleware, enqueue to Redis    — target ≥ 80% of (c)
 *
 * BENCH_SECONDS (default 10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (32), REDIS_URL (redis://127.0.0.1:6379).
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Worker } from 'node:worker_threads'
import express from 'express'
import { Redis } from 'ioredis'
import { createRedisWebhookEventQueue } from '../src/queue/index.js'
import { createReceiverServer, createWebhookMiddleware } from '../src/receiver/index.js'
import type { LoadOptions, LoadResult } from './load-worker.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const SECRET = 'whsec_bench_7b1e'
const BODY_BYTES = 800

type Phase = { name: string; result: LoadResult }

function load(url: string, idPrefix: string): Promise<LoadResult> {
  const options: LoadOptions = {
    url,
    connections: CONNECTIONS,
    warmupMs: WARMUP_SECONDS * 1000,
    durationMs: SECONDS * 1000,
    secret: SECRET,
    idPrefix,
    bodyBytes: BODY_BYTES,
  }
  // The worker is TypeScript too: a small bootstrap registers tsx in the worker before loading it.
  const entry = new URL('./load-worker.ts', import.meta.url).href
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}) })`
  const worker = new Worker(bootstrap, { eval: true, workerData: options })
  return new Promise((resolve, reject) => {
    worker.once('message', (result: LoadResult) => {
      void worker.terminate()
      resolve(result)
    })
    worker.once('error', reject)
  })
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

/** Removes every key a bench queue wrote: the whole prefix, dedupe keys included. */
async function dropQueue(prefix: string): Promise<void> {
  const connection = new Redis(REDIS_URL)
  for await (const keys of connection.scanStream({ match: `${prefix}:*`, count: 1000 })) {
    if ((keys as string[]).length > 0) await connection.unlink(...(keys as string[]))
  }
  connection.disconnect()
}

async function bareNode(): Promise<LoadResult> {
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
    return await load(url, `evt_a_${randomUUID().slice(0, 8)}`)
  } finally {
    await stop(server)
  }
}

async function standalone(): Promise<LoadResult> {
  const prefix = `bench-${randomUUID().slice(0, 8)}`
  const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix })
  const receiver = createReceiverServer({ secrets: [SECRET], queue })
  const url = `${await receiver.listen({ port: 0 })}/webhooks`
  try {
    return await load(url, `evt_b_${randomUUID().slice(0, 8)}`)
  } finally {
    receiver.server.closeAllConnections()
    await receiver.close()
    await queue.close()
    await dropQueue(prefix)
  }
}

async function bareExpress(): Promise<LoadResult> {
  const app = express()
  app.post('/webhooks', express.raw({ type: '*/*', limit: '256kb' }), (_req, res) => {
    res.status(202).json({})
  })
  const server = createServer(app)
  const url = await listen(server)
  try {
    return await load(url, `evt_c_${randomUUID().slice(0, 8)}`)
  } finally {
    await stop(server)
  }
}

async function expressMiddleware(): Promise<LoadResult> {
  const prefix = `bench-${randomUUID().slice(0, 8)}`
  const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix })
  const app = express()
  const middleware = createWebhookMiddleware({ secrets: [SECRET], queue })
  app.post('/webhooks', middleware)
  const server = createServer(app)
  const url = await listen(server)
  try {
    return await load(url, `evt_d_${randomUUID().slice(0, 8)}`)
  } finally {
    await stop(server)
    await middleware.flush()
    await queue.close()
    await dropQueue(prefix)
  }
}

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
}

const fixed = (n: number, digits = 1) => n.toFixed(digits)

async function main(): Promise<void> {
  process.stdout.write(
    `receiver benchmark: ${CONNECTIONS} connections, ${BODY_BYTES}-byte signed bodies, ` +
      `${WARMUP_SECONDS} s warm-up + ${SECONDS} s per server, loopback\n\n`,
  )
  const phases: Phase[] = []
  for (const [name, run] of [
    ['(a) bare node:http, reads body', bareNode],
    ['(b) standalone receiver + Redis', standalone],
    ['(c) bare express 5 + express.raw', bareExpress],
    ['(d) express + middleware + Redis', expressMiddleware],
  ] as const) {
    process.stdout.write(`running ${name} …\n`)
    phases.push({ name, result: await run() })
  }
  const rate = (p: Phase) => p.result.requests / p.result.seconds
  const [a, b, c, d] = phases as [Phase, Phase, Phase, Phase]
  const ratio: Record<string, string> = {
    [b.name]: `${fixed((rate(b) / rate(a)) * 100)}% of (a)`,
    [d.name]: `${fixed((rate(d) / rate(c)) * 100)}% of (c)`,
  }
  const widths = [34, 9, 8, 8, 8, 8, 14]
  process.stdout.write(
    `\n${row(['server', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'ratio'], widths)}\n`,
  )
  for (const phase of phases) {
    const r = phase.result
    process.stdout.write(
      `${row(
        [
          phase.name,
          fixed(rate(phase), 0),
          fixed(r.p50Ms, 2),
          fixed(r.p99Ms, 2),
          fixed(r.maxMs, 1),
          String(r.non2xx + r.errors),
          ratio[phase.name] ?? '',
        ],
        widths,
      )}\n`,
    )
  }
  const standaloneOk =
    rate(b) / rate(a) >= 0.35 && b.result.p99Ms <= 10 && b.result.non2xx + b.result.errors === 0
  const middlewareOk = rate(d) / rate(c) >= 0.8
  process.stdout.write(
    `\ntargets: (b) ≥ 35% of (a), p99 ≤ 10 ms, no non-2xx: ${standaloneOk ? 'met' : 'NOT met'}; ` +
      `(d) ≥ 80% of (c): ${middlewareOk ? 'met' : 'NOT met'}\n`,
  )
}

await main()

/**
 * `npm run bench:tracing`: what OpenTelemetry tracing costs the receiver, off against on in the same run. A sidecar
 * with the receiver role (Redis queue) takes fresh signed deliveries at POST /webhooks from BENCH_CONCURRENCY
 * concurrent clients in slices of BENCH_SECONDS, alternately with tracing off (the default: no OTEL_*, no SDK)
 * and on (the SDK started as OTEL_EXPORTER_OTLP_ENDPOINT starts it, every span exported to an OTLP/HTTP stub on
 * loopback that drops them), for BENCH_ROUNDS pairs; the ratio is taken within a pair and the median pair decides
 * (a shared machine drifts). With tracing on, each delivery is a server span and its job carries the traceparent.
 *
 * BENCH_SECONDS (default 3), BENCH_WARMUP_SECONDS (2), BENCH_CONCURRENCY (32), BENCH_ROUNDS (10),
 * DATABASE_URL (postgres://postgres@127.0.0.1:5432/test), REDIS_URL (redis://127.0.0.1:6379).
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Redis } from 'ioredis'
import pg from 'pg'
import { loadConfig } from '../src/config/index.js'
import { createLogger, startTracing } from '../src/observability/index.js'
import { startSidecar } from '../src/sidecar/index.js'
import { signed, testEvent } from '../test/receiver/deliveries.js'
import { TEST_SECRET_KEY } from '../test/support/test-database.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const SECRET = 'whsec_bench_tracing_5d2a'

/** `cpuUs`: this process's CPU time (user + system) per delivery, load generator included (the same both ways). */
type Measured = { rate: number; p50Ms: number; p99Ms: number; failed: number; cpuUs: number }

/** An OTLP/HTTP endpoint that takes every export and keeps only the byte count. */
async function startOtlpSink(): Promise<{ url: string; bytes: () => number; close(): Promise<void> }> {
  let bytes = 0
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length))
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

async function load(url: string, seconds: number): Promise<Measured> {
  const latencies: number[] = []
  let failed = 0
  const until = performance.now() + seconds * 1000
  const client = async () => {
    while (performance.now() < until) {
      const delivery = signed(JSON.stringify(testEvent()), SECRET)
      const started = performance.now()
      const answer = await fetch(`${url}/webhooks`, { method: 'POST', ...delivery })
      await answer.arrayBuffer()
      latencies.push(performance.now() - started)
      if (answer.status !== 202) failed++
    }
  }
  const started = performance.now()
  const cpu = process.cpuUsage()
  await Promise.all(Array.from({ length: CONCURRENCY }, client))
  const used = process.cpuUsage(cpu)
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN
  return {
    rate: latencies.length / elapsed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    failed,
    cpuUs: (used.user + used.system) / latencies.length,
  }
}

const suffix = randomBytes(4).toString('hex')
const schema = `bench_tracing_${suffix}`
const prefix = `bench-tracing-${suffix}`
const sink = await startOtlpSink()
const logger = createLogger({ level: 'warn', destination: process.stderr })
// One sidecar, tracing off as by default; the SDK is started and shut down around the "on" slices (the seams
// follow the registered provider), so both run in the same process, warm, within seconds of each other.
const sidecar = await startSidecar({
  config: loadConfig({
    DATABASE_URL,
    BANKREC_SECRET_KEY: process.env.BANKREC_SECRET_KEY ?? TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    PORT: '0',
    KIT_API_TOKEN: 'bench-token-0123456789',
    WEBHOOK_SECRETS: SECRET,
  }),
  roles: new Set(['receiver']),
  logger,
  sandboxPort: 0,
  tracingEnv: {},
})
const slice = async (on: boolean): Promise<Measured> => {
  const tracing = on ? await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }, logger) : undefined
  try {
    return await load(sidecar.url, SECONDS)
  } finally {
    await tracing?.shutdown()
  }
}
const rounds: Array<{ off: Measured; on: Measured }> = []
try {
  await load(sidecar.url, WARMUP_SECONDS)
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always meets a warmer machine.
    const onFirst = round % 2 === 1
    const a = await slice(onFirst)
    const b = await slice(!onFirst)
    const [off, on] = onFirst ? [b, a] : [a, b]
    rounds.push({ off, on })
    const f = (m: Measured) =>
      `${m.rate.toFixed(0)}/s cpu ${m.cpuUs.toFixed(0)} µs/req p50 ${m.p50Ms.toFixed(1)} ms p99 ${m.p99Ms.toFixed(1)} ms${m.failed ? ` (${m.failed} non-202)` : ''}`
    console.log(
      `round ${round + 1}: off ${f(off)} | on ${f(on)} | on/off throughput ${(on.rate / off.rate).toFixed(3)}, CPU per delivery ${(on.cpuUs / off.cpuUs).toFixed(3)}`,
    )
  }
} finally {
  await sidecar.close()
  await sink.close()
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  await client.query(`drop schema if exists ${schema} cascade`)
  await client.query(`drop schema if exists ${schema}_queue cascade`)
  await client.end()
  const redis = new Redis(REDIS_URL)
  const keys = await redis.keys(`${prefix}:*`)
  if (keys.length > 0) await redis.del(...keys)
  redis.disconnect()
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const rate = median(rounds.map((r) => r.on.rate / r.off.rate))
const cpu = median(rounds.map((r) => r.on.cpuUs / r.off.cpuUs))
const cpuDelta = median(rounds.map((r) => r.on.cpuUs - r.off.cpuUs))
console.log(
  `\ntracing on/off, median of ${ROUNDS} pairs: CPU per delivery ${cpu.toFixed(3)} (+${cpuDelta.toFixed(0)} µs), ` +
    `throughput ${rate.toFixed(3)}, p99 difference ${median(rounds.map((r) => r.on.p99Ms - r.off.p99Ms)).toFixed(1)} ms; ` +
    `spans exported: ${(sink.bytes() / 1024).toFixed(0)} KiB`,
)

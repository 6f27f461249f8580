import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { publishAppEvent } from '../../src/app-events/index.js'
import { SpanKind, createLogger, inSpan, startTracing, type Tracing } from '../../src/observability/index.js'
import { getAppEvent } from '../../src/store/index.js'
import { startAppEndpoint, type AppEndpoint } from '../app-events/app-endpoint.js'
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/test-database.js'
import { OTLP_KIND, startOtlpCollector, type OtlpCollector } from './otlp-collector.js'

/**
 * Issue 27: the app event's send continues the trace of the run that wrote it, even when another process sends
 * it. The outbox row stores the writer's traceparent; here the writer is this process and the sender a second
 * one (app-event-sender-process.ts), which hears one event by NOTIFY and finds the other, written before it
 * listened, in its start-up rescan and sends it through the app-events queue.
 */
const root = fileURLToPath(new URL('../..', import.meta.url))
const TSX = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href
const SENDER = path.join(root, 'test/observability/app-event-sender-process.ts')
const SECRET = 'app-secret-0123456789abcdef'

let collector: OtlpCollector
let database: TestDatabase
let app: AppEndpoint
let tracing: Tracing

beforeAll(async () => {
  collector = await startOtlpCollector()
  database = await createTestDatabase('app_event_trace')
  app = await startAppEndpoint(SECRET)
  tracing = await startTracing(
    { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'bankrec-writer' },
    createLogger({ level: 'silent' }),
  )
})
afterAll(async () => {
  await tracing?.shutdown()
  await app?.close()
  await database?.drop()
  await collector?.close()
})

/** Writes one event in a traced transaction, as a matching run does; returns the run span's trace and span ids. */
async function writeTraced(eventId: string): Promise<{ traceId: string; spanId: string }> {
  return inSpan('matching run', { kind: SpanKind.INTERNAL }, async (span) => {
    await database.db
      .transaction()
      .execute((trx) => publishAppEvent(trx, { id: eventId, type: 'invoice.paid', data: {} }))
    const { traceId, spanId } = span.spanContext()
    return { traceId, spanId }
  })
}

async function startSender(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', TSX, SENDER], {
    cwd: root,
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'bankrec-sender',
      DATABASE_URL: TEST_DATABASE_URL,
      SCHEMA: database.schema,
      QUEUE_PREFIX: `test-app-event-trace-${randomBytes(4).toString('hex')}`,
      APP_WEBHOOK_URL: app.url,
      APP_WEBHOOK_SECRET: SECRET,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += String(chunk)
      if (out.includes('ready\n')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`the sender exited with ${code} before it was ready`)))
  })
  return child
}

describe('an app event sent by another process', () => {
  it('is sent in a client span of the writing run’s trace, by NOTIFY and through the queue alike', async () => {
    const early = `evt_${randomBytes(6).toString('hex')}`
    const late = `evt_${randomBytes(6).toString('hex')}`
    const earlyRun = await writeTraced(early)
    expect((await getAppEvent(database.db, early))?.traceparent).toBe(
      `00-${earlyRun.traceId}-${earlyRun.spanId}-01`,
    )
    const sender = await startSender()
    let lateRun: { traceId: string; spanId: string }
    try {
      lateRun = await writeTraced(late)
      await app.waitFor(early)
      await app.waitFor(late)
      await expect.poll(async () => (await getAppEvent(database.db, late))?.deliveredAt).toBeInstanceOf(Date)
      await expect.poll(async () => (await getAppEvent(database.db, early))?.deliveredAt).toBeInstanceOf(Date)
    } finally {
      const exited = once(sender, 'exit')
      sender.kill('SIGTERM')
      await exited
    }
    expect(collector.refused).toEqual([])
    const sends = collector.spans.filter(
      (span) => span.kind === OTLP_KIND.client && span.name === 'POST app event',
    )
    for (const run of [earlyRun, lateRun]) {
      const send = sends.find((span) => span.traceId === run.traceId)
      expect(send, JSON.stringify(sends)).toBeDefined()
      expect(send!.parentSpanId).toBe(run.spanId)
    }
    // The queue's consumer span of the early event ran in the sender, beside the send it did.
    expect(
      collector.spans.some((span) => span.kind === OTLP_KIND.consumer && span.name === 'app-events process'),
    ).toBe(true)
  }, 90_000)
})

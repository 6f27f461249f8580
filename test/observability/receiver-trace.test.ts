import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { silentLogger, startTracing } from '../../src/observability/index.js'
import { createRedisWebhookEventQueue, jobIdFor } from '../../src/queue/index.js'
import { createReceiverServer } from '../../src/receiver/index.js'
import { testIo } from '../cli/test-io.js'
import { REDIS_URL, SECRET, inspectQueue, signed, testEvent, uniquePrefix } from '../receiver/deliveries.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY, dropSidecarSchemas } from '../support/test-database.js'
import { OTLP_KIND, startOtlpCollector, type CollectedSpan, type OtlpCollector } from './otlp-collector.js'

/**
 * Issue 27: the standalone receiver (`createReceiverServer`, and `bankrec receiver`) makes the same server span per
 * delivery as the sidecar's /webhooks (test/observability/webhook-trace.test.ts), continuing the sender's
 * traceparent, and carries it in the event's job, so the worker's consumer span continues the delivery's trace.
 */
let collector: OtlpCollector
const prefix = uniquePrefix('receiver-trace')
const view = inspectQueue(prefix)
const schema = `test_receiver_trace_${randomBytes(4).toString('hex')}`
const OTEL_ENV = {
  OTEL_BSP_SCHEDULE_DELAY: '200',
  OTEL_SERVICE_NAME: 'bankrec-receiver-trace-test',
} as const

beforeAll(async () => {
  collector = await startOtlpCollector()
})
afterAll(async () => {
  await view.close()
  await collector.close()
  await dropSidecarSchemas(schema)
})

/** A sender's own span, as a W3C traceparent (sampled). */
function sender() {
  const traceId = randomBytes(16).toString('hex')
  const spanId = randomBytes(8).toString('hex')
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` }
}

/** POSTs one signed delivery under the sender's trace; answers the status and the job's carried traceparent. */
async function deliver(url: string, traceparent: string) {
  const event = testEvent()
  const { body, headers } = signed(JSON.stringify(event))
  const response = await fetch(url, { method: 'POST', body, headers: { ...headers, traceparent } })
  await view.forward()
  const job = await view.queue.getJob(jobIdFor(event.id as string))
  return { status: response.status, carried: job?.data.traceparent }
}

/** The delivery's server span as the sidecar makes it: its name, kind, route, status and nothing else. */
function expectServerSpan(span: CollectedSpan | undefined, from: ReturnType<typeof sender>): CollectedSpan {
  expect(span, JSON.stringify(collector.spans.map((s) => s.name))).toBeDefined()
  expect(span!.parentSpanId).toBe(from.spanId)
  expect(span!.attributes).toEqual({
    'http.request.method': 'POST',
    'http.route': '/webhooks',
    'http.response.status_code': 202,
  })
  return span!
}

const serverSpanOf = (traceId: string) =>
  collector.spans.find(
    (span) => span.traceId === traceId && span.kind === OTLP_KIND.server && span.name === 'POST /webhooks',
  )

describe('the standalone receiver with tracing on', () => {
  it('createReceiverServer makes the server span of a delivery and carries it in the job', async () => {
    const tracing = await startTracing(
      { ...OTEL_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
      silentLogger,
    )
    const queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, forward: false })
    const receiver = createReceiverServer({ secrets: [SECRET], queue })
    const from = sender()
    let delivered: Awaited<ReturnType<typeof deliver>>
    try {
      delivered = await deliver(`${await receiver.listen({ port: 0 })}/webhooks`, from.traceparent)
    } finally {
      await receiver.close()
      await queue.close()
      // Shutting down exports every span still buffered.
      await tracing.shutdown()
    }
    expect(delivered.status).toBe(202)
    const span = expectServerSpan(serverSpanOf(from.traceId), from)
    expect(delivered.carried).toBe(`00-${from.traceId}-${span.spanId}-01`)
  })

  it('`bankrec receiver` makes the same span and carries it in the job', async () => {
    const set = { ...OTEL_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }
    // The CLI reads the OTEL_* variables from the process environment, as the SDK does.
    Object.assign(process.env, set)
    const t = testIo({
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: schema,
      // The receiver role needs no bank; a closed loopback port keeps sandbox mode out of it.
      BANK_API_URL: 'http://127.0.0.1:9',
      BANK_API_KEY: 'unused-by-the-receiver',
      WEBHOOK_SECRETS: SECRET,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      PORT: '0',
      LOG_LEVEL: 'warn',
    })
    const from = sender()
    let delivered: Awaited<ReturnType<typeof deliver>>
    let exit: number
    try {
      const running = runCli(['receiver'], t.io)
      const [, url] = await Promise.race([
        t.waitForOutput(/listening on (\S+)/),
        running.then((code) => Promise.reject(new Error(`receiver exited ${code}: ${t.err()}`))),
      ])
      delivered = await deliver(url!, from.traceparent)
      t.stop()
      exit = await running
    } finally {
      for (const name of Object.keys(set)) delete process.env[name]
    }
    expect(exit).toBe(0)
    expect(delivered.status).toBe(202)
    const span = expectServerSpan(serverSpanOf(from.traceId), from)
    expect(delivered.carried).toBe(`00-${from.traceId}-${span.spanId}-01`)
  }, 30_000)
})

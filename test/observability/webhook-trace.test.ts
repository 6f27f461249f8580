import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/observability/index.js'
import { startIdlePipeline } from '../support/one-paid-delivery.js'
import { OTLP_KIND, startOtlpCollector, type CollectedSpan, type OtlpCollector } from './otlp-collector.js'

/**
 * With the standard OTEL_* variables set, one webhook delivery is one trace at a real OTLP/HTTP endpoint: the
 * receiver's server span, the webhook-events job's consumer span (the traceparent carried in the job), the sync's
 * bank calls as client spans, the matching run, and the app event's POST; and the log lines carry its trace id.
 */
const OTEL_ENV = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_BSP_SCHEDULE_DELAY', 'OTEL_SERVICE_NAME'] as const

let collector: OtlpCollector
beforeAll(async () => {
  collector = await startOtlpCollector()
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url
  process.env.OTEL_BSP_SCHEDULE_DELAY = '200'
  process.env.OTEL_SERVICE_NAME = 'bankrec-trace-test'
})
afterAll(async () => {
  for (const name of OTEL_ENV) delete process.env[name]
  await collector.close()
})

/** The spans of each trace that starts at a webhook delivery and reaches the app event, with their ancestry. */
function webhookTraces(spans: readonly CollectedSpan[]) {
  const byId = new Map(spans.map((span) => [span.spanId, span]))
  const descendsFrom = (span: CollectedSpan, ancestor: CollectedSpan): boolean => {
    for (let at = byId.get(span.parentSpanId ?? ''); at; at = byId.get(at.parentSpanId ?? ''))
      if (at.spanId === ancestor.spanId) return true
    return false
  }
  return spans
    .filter((span) => span.kind === OTLP_KIND.server && span.name === 'POST /webhooks')
    .map((server) => {
      const trace = spans.filter((span) => span.traceId === server.traceId)
      const consumer = trace.find(
        (span) => span.kind === OTLP_KIND.consumer && span.name === 'webhook-events process',
      )
      return {
        server,
        consumer,
        consumerIsChild: consumer?.parentSpanId === server.spanId,
        bankCalls: consumer
          ? trace
              .filter((span) => span.kind === OTLP_KIND.client && span.name.includes(' /v1/'))
              .filter((span) => descendsFrom(span, consumer))
          : [],
        matching: trace.filter((span) => span.name === 'matching run'),
        appEvents: trace.filter((span) => span.kind === OTLP_KIND.client && span.name === 'POST app event'),
      }
    })
}

describe.each(['postgres', 'redis'] as const)('one webhook delivery traced on the %s queue', (kind) => {
  it('is one trace from the receiver through the queue, the sync and its bank calls, matching and the app event; logs carry its id', async () => {
    collector.spans.length = 0
    let logText = ''
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({
        write(chunk, _encoding, done) {
          logText += String(chunk)
          done()
        },
      }),
    })
    const pipeline = await startIdlePipeline(`otel_${kind}`, kind, { logger })
    try {
      await pipeline.payAndAwaitInvoicePaid()
    } finally {
      // Shutting down exports every span still buffered.
      await pipeline.close()
    }
    expect(collector.refused).toEqual([])
    const full = webhookTraces(collector.spans).filter(
      (trace) =>
        trace.consumerIsChild &&
        trace.bankCalls.some((span) => span.name === 'GET /v1/transactions/sync') &&
        trace.matching.length > 0 &&
        trace.appEvents.length > 0,
    )
    expect(full.length, JSON.stringify(collector.spans.map((s) => s.name))).toBeGreaterThan(0)
    const [trace] = full
    expect(trace!.server.attributes['http.route']).toBe('/webhooks')
    expect(trace!.server.attributes['http.response.status_code']).toBe(202)
    expect(trace!.consumer!.attributes['messaging.destination.name']).toBe('webhook-events')
    expect(trace!.bankCalls.find((s) => s.name === 'GET /v1/transactions/sync')!.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.template': '/v1/transactions/sync',
      'http.response.status_code': 200,
    })
    const logged = logText
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { trace_id?: string; span_id?: string })
    const traced = logged.filter((line) => full.some((t) => t.server.traceId === line.trace_id))
    expect(traced.filter((line) => line.span_id).length).toBeGreaterThan(0)
  }, 90_000)
})

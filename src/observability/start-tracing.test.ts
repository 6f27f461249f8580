import { trace } from '@opentelemetry/api'
import { describe, expect, it } from 'vitest'
import { silentLogger } from './logger.js'
import { startTracing, tracesUrl, tracingRequested } from './start-tracing.js'
import { currentTraceparent, inSpan, traceLogFields } from './tracing.js'

describe('tracingRequested', () => {
  it('is off without OTEL_* variables, and when they turn it off', () => {
    expect(tracingRequested({})).toBe(false)
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'bankrec' })).toBe(false)
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false)
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBe(false)
  })

  it('is on with an OTLP endpoint or the otlp exporter named', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(true)
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(true)
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true)
  })
})

describe('tracesUrl', () => {
  it('takes the traces endpoint as is and adds /v1/traces to the base endpoint', () => {
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' })).toBe(
      'http://c:4318/custom',
    )
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toBe('http://c:4318/v1/traces')
    expect(tracesUrl({ OTEL_TRACES_EXPORTER: 'otlp' })).toBeUndefined()
  })
})

describe('off by default', () => {
  it('registers no provider, and the seams carry nothing', async () => {
    const tracing = await startTracing({}, silentLogger)
    expect(tracing.enabled).toBe(false)
    await inSpan('work', {}, async (span) => {
      expect(span.isRecording()).toBe(false)
      expect(currentTraceparent()).toBeUndefined()
      expect(traceLogFields()).toEqual({})
    })
    expect(trace.getTracerProvider().getTracer('x').startSpan('y').isRecording()).toBe(false)
    await tracing.shutdown()
  })
})

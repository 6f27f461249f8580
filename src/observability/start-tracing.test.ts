import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { trace } from '@opentelemetry/api'
import { describe, expect, it } from 'vitest'
import { silentLogger } from './logger.js'
import { startTracing, tracesProtocol, tracesUrl, tracingRequested } from './start-tracing.js'
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

describe('tracesProtocol', () => {
  it('is JSON unless protobuf (or grpc) is asked for, the traces variable first', () => {
    expect(tracesProtocol({})).toBe('http/json')
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toBe('http/protobuf')
    expect(
      tracesProtocol({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
    ).toBe('http/json')
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe('grpc')
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

describe('on', () => {
  it('exports spans as OTLP/HTTP protobuf when OTEL_EXPORTER_OTLP_PROTOCOL asks, and unregisters on shutdown', async () => {
    const received: Array<{ url?: string; type?: string; bytes: number }> = []
    const server = createServer((req, res) => {
      let bytes = 0
      req.on('data', (chunk: Buffer) => (bytes += chunk.length))
      req.on('end', () => {
        received.push({ url: req.url, type: req.headers['content-type'], bytes })
        res.writeHead(200).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const tracing = await startTracing(
        { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
        silentLogger,
      )
      expect(tracing.enabled).toBe(true)
      await inSpan('work', {}, async () => {
        expect(currentTraceparent()).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
        expect(traceLogFields()).toHaveProperty('trace_id')
      })
      await tracing.shutdown()
      expect(received).toEqual([
        { url: '/v1/traces', type: 'application/x-protobuf', bytes: expect.any(Number) },
      ])
      expect(received[0]!.bytes).toBeGreaterThan(0)
      expect(currentTraceparent()).toBeUndefined()
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

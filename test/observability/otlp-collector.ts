import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One span as the OTLP/HTTP JSON exporter sends it (ids in hex, kind as OTLP's number). */
export type CollectedSpan = {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: Record<string, unknown>
}

/** OTLP's SpanKind numbers. */
export const OTLP_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const

export type OtlpCollector = {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string
  spans: CollectedSpan[]
  /** Requests that were not OTLP/HTTP JSON trace exports. */
  refused: string[]
  close(): Promise<void>
}

type AnyValue = {
  stringValue?: string
  intValue?: string | number
  boolValue?: boolean
  doubleValue?: number
}
type ExportRequest = {
  resourceSpans?: Array<{
    scopeSpans?: Array<{
      spans?: Array<Omit<CollectedSpan, 'attributes'> & { attributes?: { key: string; value: AnyValue }[] }>
    }>
  }>
}

/** An OpenTelemetry collector's OTLP/HTTP traces endpoint on 127.0.0.1, keeping every span it is sent. */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = []
  const refused: string[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !req.headers['content-type']?.includes('json')
      ) {
        refused.push(`${req.method} ${req.url} ${req.headers['content-type']}`)
        res.writeHead(415).end()
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest
      for (const resource of body.resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? [])
          for (const span of scope.spans ?? []) {
            const attributes: Record<string, unknown> = {}
            for (const { key, value } of span.attributes ?? [])
              attributes[key] = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue
            spans.push({ ...span, attributes })
          }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    refused,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

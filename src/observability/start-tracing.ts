import { context, propagation, trace } from '@opentelemetry/api'
import type { Logger } from './logger.js'

export type TracingEnv = Readonly<Record<string, string | undefined>>

/** A started tracer provider (or none): `shutdown` exports what is buffered and unregisters it. */
export type Tracing = { enabled: boolean; shutdown(): Promise<void> }

/**
 * Whether the standard OTEL_* variables ask for traces: an OTLP endpoint, or `OTEL_TRACES_EXPORTER=otlp`
 * (then the exporter's default, http://localhost:4318). `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none`
 * turn it off.
 */
export function tracingRequested(env: TracingEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase())
  if (exporters.includes('none')) return false
  return (
    exporters.includes('otlp') ||
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT) ||
    Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  )
}

/** The OTLP/HTTP traces URL the variables name (the signal-specific one as is, the base one + /v1/traces). */
export function tracesUrl(env: TracingEnv): string | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT)
    return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
  return undefined
}

const OFF: Tracing = { enabled: false, shutdown: async () => undefined }

/**
 * The OTLP/HTTP encoding the variables ask for: `http/protobuf` (the specification's default when a collector is
 * named by protocol) or `http/json`, this exporter's own default. `grpc` is not supported: JSON is sent, and the
 * log says so.
 */
export function tracesProtocol(env: TracingEnv): 'http/json' | 'http/protobuf' | 'grpc' {
  const named = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim()
  return named === 'http/protobuf' || named === 'grpc' ? named : 'http/json'
}

/**
 * Starts OpenTelemetry tracing when the OTEL_* variables ask for it: a Node tracer provider (AsyncLocalStorage
 * context, W3C trace context) exporting OTLP/HTTP (JSON, or protobuf as OTEL_EXPORTER_OTLP_PROTOCOL asks) in batches. Off by default: without them the SDK is never
 * imported, and the seams (src/observability/tracing.ts) stay the API's no-ops. Other OTEL_* variables
 * (OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*, OTEL_TRACES_SAMPLER, OTEL_RESOURCE_ATTRIBUTES, …) are the SDK's own.
 */
export async function startTracing(env: TracingEnv, logger: Logger): Promise<Tracing> {
  if (!tracingRequested(env)) return OFF
  const protocol = tracesProtocol(env)
  if (protocol === 'grpc')
    logger.warn('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; exporting OTLP/HTTP JSON instead')
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources, conventions] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      protocol === 'http/protobuf'
        ? import('@opentelemetry/exporter-trace-otlp-proto')
        : import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/semantic-conventions'),
    ])
  const url = tracesUrl(env)
  const resource = resources
    .resourceFromAttributes({ [conventions.ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? 'bankrec' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(url ? { url } : {}))],
  })
  provider.register()
  logger.info(
    { url: url ?? 'the exporter default', protocol: protocol === 'grpc' ? 'http/json' : protocol },
    'OpenTelemetry tracing on (OTLP/HTTP)',
  )
  return {
    enabled: true,
    async shutdown() {
      await provider.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'trace export failed'))
      // Unregistered so that a later start in the same process (tests) registers its own.
      trace.disable()
      context.disable()
      propagation.disable()
    },
  }
}

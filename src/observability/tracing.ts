import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api'

/**
 * bankrec's seams of one trace (docs/operations.md, Tracing), on the OpenTelemetry API only: without a registered
 * SDK (OTEL_* unset, src/observability/start-tracing.ts) every call here is the API's no-op, so the code paths
 * cost a few function calls and no allocation of spans.
 */
export function tracer(): Tracer {
  // The tracer of the provider registered now: a provider shut down and replaced (a second start in one process)
  // must not keep receiving spans through a tracer taken from the first.
  const provider = trace.getTracerProvider()
  if (provider !== cached.provider) cached = { provider, tracer: provider.getTracer('bankrec') }
  return cached.tracer
}

let cached: { provider?: TracerProvider; tracer: Tracer } = { tracer: trace.getTracer('bankrec') }

export { SpanKind }
export type { Span }

/** The W3C `traceparent` of the active span (to carry in a job or a header); undefined when nothing is traced. */
export function currentTraceparent(): string | undefined {
  if (!trace.getActiveSpan()) return undefined
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  return carrier.traceparent
}

/** The context a carried `traceparent` (and `tracestate`) names, or the root context. */
export function contextFrom(carrier: Record<string, unknown> | undefined): Context {
  if (!carrier || typeof carrier.traceparent !== 'string') return ROOT_CONTEXT
  return propagation.extract(ROOT_CONTEXT, carrier, {
    get: (c, key) => (typeof c[key] === 'string' ? c[key] : undefined),
    keys: (c) => Object.keys(c),
  })
}

/** Adds the active context's `traceparent` to outgoing request headers (a no-op when nothing is traced). */
export function injectTraceHeaders(headers: Record<string, string>): void {
  if (trace.getActiveSpan()) propagation.inject(context.active(), headers)
}

export type SpanOptions = { kind?: SpanKind; attributes?: Attributes; parent?: Context }

/**
 * Runs `fn` inside a new span (the child of `parent`, else of the active span) and ends it with `fn`: a throw is
 * recorded on the span and rethrown.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active()
  const span = tracer().startSpan(name, { kind: options.kind, attributes: options.attributes }, parent)
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span))
  } catch (error) {
    failSpan(span, error)
    throw error
  } finally {
    span.end()
  }
}

/** Starts a span (the child of `parent`) that the caller ends, e.g. a server span ended when the answer is sent. */
export function startSpan(name: string, options: SpanOptions): Span {
  return tracer().startSpan(name, { kind: options.kind, attributes: options.attributes }, options.parent)
}

/**
 * Whether a span is the API's no-op (no SDK registered, no caller's trace to continue): it records nothing and
 * carries no trace to propagate, so running code inside it changes nothing. A span an SDK sampled out still
 * carries its trace id and is not one.
 */
export function isNoopSpan(span: Span): boolean {
  return !span.isRecording() && !isSpanContextValid(span.spanContext())
}

/** Runs `fn` with `span` active under `parent`: what `fn` starts, and its logs, belong to the span. */
export function runInSpan<T>(parent: Context, span: Span, fn: () => T): T {
  return context.with(trace.setSpan(parent, span), fn)
}

/** Marks a span failed with the error's type and message (never a body or a secret: messages are redacted). */
export function failSpan(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined })
  span.setAttribute('error.type', error instanceof Error ? error.name : 'error')
}

/** `trace_id` and `span_id` of the active span, for every log line (pino's mixin); empty when nothing is traced. */
export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan()
  if (!span) return {}
  const spanContext = span.spanContext()
  if (!isSpanContextValid(spanContext)) return {}
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId }
}

export { createLogger, silentLogger } from './logger.js'
export { redactSecrets, isSecretKey } from './redact.js'
export { newRequestId, requestIdFrom } from './request-id.js'
export type { Logger, LoggerOptions } from './logger.js'
export {
  SpanKind,
  contextFrom,
  currentTraceparent,
  failSpan,
  inSpan,
  injectTraceHeaders,
  runInSpan,
  startSpan,
  traceLogFields,
  tracer,
} from './tracing.js'
export type { Span, SpanOptions } from './tracing.js'
export { UNMATCHED_ROUTE, startServerSpan } from './server-span.js'
export type { ServerSpan } from './server-span.js'
export { startTracing, tracesProtocol, tracingRequested, tracesUrl } from './start-tracing.js'
export type { Tracing, TracingEnv } from './start-tracing.js'

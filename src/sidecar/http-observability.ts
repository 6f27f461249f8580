import type { Request, RequestHandler } from 'express'
import { UNMATCHED_ROUTE, startServerSpan, type Logger } from '../observability/index.js'
import type { TrafficMetrics } from './traffic-metrics.js'

export type HttpObservabilityOptions = {
  logger: Logger
  metrics: Pick<TrafficMetrics, 'request'>
  /** ACCESS_LOG=on: the access log at info; else at debug. */
  accessLog: boolean
}

/**
 * Every request of the sidecar's server, observed once: a server span (startServerSpan, continuing the caller's
 * `traceparent`; the receiver carries it into the event's job), its duration and 5xx errors per route template,
 * and the access log line. The route is the template express matched (`/api/invoices/:id`), read when the router sets
 * `req.route`, where `req.baseUrl` is still that router's; an error handled outside the router would see the
 * app's. Neither the query string nor any header reaches the log or the span.
 */
export function observeRequests(options: HttpObservabilityOptions): RequestHandler {
  const { logger, metrics } = options
  const log = options.accessLog ? logger.info.bind(logger) : logger.debug.bind(logger)
  return function observeRequest(req, res, next) {
    const started = performance.now()
    const span = startServerSpan(req.method, req.headers)
    const route = captureRoute(req)
    let done = false
    const finish = () => {
      if (done) return
      done = true
      const template = route() ?? UNMATCHED_ROUTE
      const status = res.headersSent ? res.statusCode : 0
      const seconds = (performance.now() - started) / 1000
      span.end(template, status)
      metrics.request({ method: req.method, route: template, status, seconds })
      log(
        {
          method: req.method,
          route: template,
          status,
          durationMs: Math.round(seconds * 10_000) / 10,
          requestId: res.locals.requestId as string | undefined,
        },
        'request',
      )
    }
    res.once('finish', finish)
    res.once('close', finish)
    span.run(next)
  }
}

/** Reads the matched route's template as the router sets it (`baseUrl` + the route's path). */
function captureRoute(req: Request): () => string | undefined {
  let value: unknown
  let template: string | undefined
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => value,
    set(route: { path?: unknown } | undefined) {
      value = route
      if (typeof route?.path === 'string') template = `${req.baseUrl}${route.path}`
    },
  })
  return () => template
}

import type { IncomingHttpHeaders } from 'node:http'
import { SpanKind, contextFrom, failSpan, isNoopSpan, runInSpan, startSpan } from './tracing.js'

/** What the route of a request that matched none is called (a 404): raw paths would make every scan a series. */
export const UNMATCHED_ROUTE = 'unmatched'

/** One request's server span: `run` runs the handler inside it, `end` names it after its route and ends it. */
export type ServerSpan = {
  run<T>(fn: () => T): T
  /** Ends the span once, with the route template and the status sent (0: none, the request was aborted). */
  end(route: string, status: number): void
}

/** The server span of a request nothing traces. */
const UNTRACED: ServerSpan = { run: (fn) => fn(), end: () => undefined }

/**
 * The server span of one HTTP request, for every server of bankrec alike (the sidecar's express app and the
 * standalone receiver): it continues the caller's `traceparent`, is named `METHOD route` once the route is known,
 * and is failed on a 5xx or no answer. Neither the query string nor any header reaches it. A no-op unless tracing
 * is on.
 */
export function startServerSpan(method: string, headers: IncomingHttpHeaders): ServerSpan {
  const parent = contextFrom(headers as Record<string, unknown>)
  const span = startSpan(method, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': method },
    parent,
  })
  // Decided first: untraced, the request gets no context to run in and nothing to end (no closures per request).
  if (isNoopSpan(span)) return UNTRACED
  let ended = false
  return {
    run: (fn) => runInSpan(parent, span, fn),
    end(route, status) {
      if (ended) return
      ended = true
      span.updateName(`${method} ${route}`)
      span.setAttribute('http.route', route)
      span.setAttribute('http.response.status_code', status)
      if (status >= 500 || status === 0) failSpan(span, new Error(status ? `HTTP ${status}` : 'aborted'))
      span.end()
    },
  }
}

import { createServer, type RequestListener, type Server } from 'node:http'

/** What one HTTP listener allows a client: how long it may take and how many connections may be open at once. */
export type ListenerLimits = {
  /** Whole request, headers and body; past it the request is answered 408 and its connection closed. */
  requestTimeoutMs: number
  /** Headers alone (slowloris). */
  headersTimeoutMs: number
  /** How long an idle keep-alive connection is kept. */
  keepAliveTimeoutMs: number
  /** Connections open at once; more are closed as they arrive. */
  maxConnections: number
}

/**
 * Every listener of bankrec (sidecar, standalone receiver, sandbox). Node's defaults hold a stalled body for
 * 300 s and take any number of connections; the bank's deliveries (256 KiB at most) and the API's callers need a
 * fraction of these.
 */
export const LISTENER_LIMITS: ListenerLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
}

/** A node:http server with `limits`; the timeouts are checked every second (Node's default is every 30 s). */
export function createLimitedServer(
  handler: RequestListener,
  limits: ListenerLimits = LISTENER_LIMITS,
): Server {
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    handler,
  )
  server.maxConnections = limits.maxConnections
  return server
}

import type { Server, ServerResponse } from 'node:http'
import type { RequestHandler } from 'express'

/** The HTTP side of a graceful stop: requests in flight are answered, requests that arrive after it began are not taken. */
export type Drain = {
  readonly draining: boolean
  /**
   * Whether a request must be refused: once draining, it answers 503 `shutting_down` (naming `requestId()`),
   * closes the connection and returns true. A request it lets through calls `answered` once its answer is sent.
   * Used by the webhook route, which runs before express.
   */
  refuse(res: ServerResponse, requestId: () => string): boolean
  /** An admitted request's answer is sent: while draining, its connection is closed once idle. */
  answered(): void
  /** Mounted first in express: `refuse` with the request id assignRequestId gave, `answered` on `finish`. */
  middleware: RequestHandler
  /**
   * Stops taking connections and requests, waits for the requests in flight to be answered (at most
   * `timeoutMs`, then their connections are cut) and resolves when the server is closed.
   */
  close(server: Server, timeoutMs: number): Promise<void>
}

export function createDrain(): Drain {
  let draining = false
  let server: Server | undefined
  // An answered keep-alive connection would otherwise idle until keepAliveTimeout before the server can close.
  const closeIdleSoon = () => setImmediate(() => server?.closeIdleConnections())

  // Shared, not a closure per request.
  const answered = () => {
    if (draining) closeIdleSoon()
  }

  const refuse = (res: ServerResponse, requestId: () => string): boolean => {
    if (!draining) return false
    // Retry policy is not in the seed; a 503 is the answer every webhook sender treats as "try again later".
    const body = JSON.stringify({
      error: {
        code: 'shutting_down',
        message: 'bankrec is stopping; retry shortly.',
        requestId: requestId(),
      },
    })
    res.writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
      'retry-after': '5',
    })
    res.end(body)
    return true
  }

  return {
    get draining() {
      return draining
    },
    refuse,
    answered,
    middleware: (_req, res, next) => {
      if (refuse(res, () => String(res.locals.requestId ?? ''))) return
      res.once('finish', answered)
      next()
    },
    close(target, timeoutMs) {
      draining = true
      server = target
      return new Promise<void>((resolve) => {
        const cut = setTimeout(() => target.closeAllConnections(), timeoutMs)
        cut.unref()
        target.close(() => {
          clearTimeout(cut)
          resolve()
        })
        target.closeIdleConnections()
      })
    },
  }
}

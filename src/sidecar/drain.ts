import type { Server, ServerResponse } from 'node:http'
import type { RequestHandler } from 'express'

/** The HTTP side of a graceful stop: requests in flight are answered, requests that arrive after it began are not taken. */
export type Drain = {
  readonly draining: boolean
  /**
   * Whether a request may be served: once draining, it answers 503 `shutting_down` (naming `requestId()`) and
   * closes the connection, and returns false. Used by the webhook route, which runs before express.
   */
  admit(res: ServerResponse, requestId: () => string): boolean
  /** Mounted first in express: `admit` with the request id assignRequestId gave. */
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

  const admit = (res: ServerResponse, requestId: () => string): boolean => {
    if (!draining) {
      res.once('finish', () => draining && closeIdleSoon())
      return true
    }
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
    return false
  }

  return {
    get draining() {
      return draining
    },
    admit,
    middleware: (_req, res, next) => {
      if (admit(res, () => String(res.locals.requestId ?? ''))) next()
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

import type { Server } from 'node:http'
import type { RequestHandler } from 'express'

/** The HTTP side of a graceful stop: requests in flight are answered, requests that arrive after it began are not taken. */
export type Drain = {
  readonly draining: boolean
  /** Mounted first: once draining, a new request is answered 503 `shutting_down` and its connection closed. */
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

  const middleware: RequestHandler = (_req, res, next) => {
    if (!draining) {
      res.once('finish', () => draining && closeIdleSoon())
      return next()
    }
    // Retry policy is not in the seed; a 503 is the answer every webhook sender treats as "try again later".
    res.status(503).set({ connection: 'close', 'retry-after': '5' })
    res.json({
      error: {
        code: 'shutting_down',
        message: 'bankrec is stopping; retry shortly.',
        requestId: String(res.locals.requestId ?? ''),
      },
    })
  }

  return {
    get draining() {
      return draining
    },
    middleware,
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

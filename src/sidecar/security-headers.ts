import type { RequestHandler } from 'express'
import helmet from 'helmet'

/**
 * Headers every answer of the sidecar carries, whatever the route (API, dashboard, queue board, health):
 * helmet's set (nosniff, frame and cross-origin policies, no referrer, no X-Powered-By) under a CSP that allows
 * nothing (the dashboard pages and the queue board send their own, nonce'd one), and `Cache-Control: no-store`,
 * since answers hold account data and tokens open them. HSTS is left to the TLS proxy, which owns the domain.
 */
export function securityHeaders(): RequestHandler {
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    strictTransportSecurity: false,
  })
  return (req, res, next) => {
    res.setHeader('cache-control', 'no-store')
    headers(req, res, next)
  }
}

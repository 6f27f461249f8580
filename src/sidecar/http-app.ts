import type { RequestListener } from 'node:http'
import express from 'express'
import { sql } from 'kysely'
import type { WebhookEventQueue } from '../queue/index.js'
import { SidecarApiError, answerApiError, assignRequestId, handle } from './api-error.js'
import { apiRoutes } from './api/index.js'
import { refuseUnstorableText } from './api/refuse-unstorable-text.js'
import { requireActor } from './auth/index.js'
import { bearerOf, tokenMatches } from './token-matches.js'
import { dashboardRoutes } from './dashboard/index.js'
import { bankrecApiDocument } from './openapi/index.js'
import type { Drain } from './drain.js'
import { observeRequests } from './http-observability.js'
import { refuseLargeBody } from './refuse-large-body.js'
import { securityHeaders } from './security-headers.js'
import type { SidecarContext, SidecarRole } from './context.js'
import { createWebhookRoute } from './webhook-route.js'

/** JSON bodies of the HTTP API; the invoice CSV import has its own, larger limit. */
const API_JSON_LIMIT_BYTES = 10 * 1024 * 1024

export type SidecarApp = express.Express & {
  /** The server's request listener: POST /webhooks on its own lean path (webhook-route.ts), the rest to express. */
  listener: RequestListener
  /** Writes the receiver's pending queue batches (after the server stopped taking requests). */
  flushReceiver(): Promise<void>
}

/**
 * The sidecar's one HTTP server: POST /webhooks (receiver role; answered before express, see `listener`),
 * /api (Bearer KIT_API_TOKEN or a user's token), the dashboard at / and the queue board at /admin/queues (api role), /healthz,
 * /readyz and /metrics.
 */
export function createSidecarApp(
  context: SidecarContext,
  options: { roles: ReadonlySet<SidecarRole>; eventQueue?: WebhookEventQueue; drain?: Drain },
): SidecarApp {
  const app = express()
  app.disable('x-powered-by')
  // Behind a TLS proxy: req.secure (the session cookie's Secure flag) and req.host follow X-Forwarded-*.
  if (context.config.TRUST_PROXY !== undefined) app.set('trust proxy', context.config.TRUST_PROXY)
  app.use(securityHeaders())
  app.use(assignRequestId)
  app.use(
    observeRequests({
      logger: context.logger,
      metrics: context.metrics.traffic,
      accessLog: context.config.ACCESS_LOG === 'on',
    }),
  )
  if (options.drain) app.use(options.drain.middleware)

  const webhooks =
    options.roles.has('receiver') && options.eventQueue
      ? createWebhookRoute(context, { eventQueue: options.eventQueue, drain: options.drain })
      : undefined

  app.get(
    '/metrics',
    handle(async (req, res) => {
      const token = context.config.METRICS_TOKEN
      if (token !== undefined && !tokenMatches(bearerOf(req.headers.authorization), token)) {
        throw new SidecarApiError(401, 'unauthorized', 'Send METRICS_TOKEN as Authorization: Bearer <token>.')
      }
      const { registry } = context.metrics
      res.type(registry.contentType).send(await registry.metrics())
    }),
  )
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get(
    '/readyz',
    handle(async (_req, res) => {
      // The probe is open: it says what is down, never why (a raw error names hosts, users and ports); the log does.
      const checks: Record<string, 'ok' | 'unavailable'> = {}
      const check = (name: string, probe: Promise<unknown>) =>
        probe.then(
          () => (checks[name] = 'ok'),
          (error: unknown) => {
            checks[name] = 'unavailable'
            context.logger.warn({ err: error, check: name }, 'readiness check failed')
          },
        )
      await check('database', sql`select 1`.execute(context.store.db))
      if (options.eventQueue) await check('queue', options.eventQueue.ping())
      const ready = Object.values(checks).every((v) => v === 'ok')
      const { warnings } = context
      res
        .status(ready ? 200 : 503)
        .json({ status: ready ? 'ready' : 'not_ready', checks, ...(warnings.length > 0 ? { warnings } : {}) })
    }),
  )

  if (options.roles.has('api')) {
    // Open like /healthz: it describes the code, not the data (docs/operations.md).
    let document: ReturnType<typeof bankrecApiDocument> | undefined
    app.get('/api/openapi.json', (_req, res) => {
      document ??= bankrecApiDocument()
      res.json(document)
    })
    app.use(
      '/api',
      requireActor(context.auth),
      refuseLargeBody(API_JSON_LIMIT_BYTES, ['json']),
      express.json({ limit: API_JSON_LIMIT_BYTES }),
      refuseUnstorableText,
      apiRoutes(context),
    )
    // Page paths and queries reach the store too (an invoice id, a cursor): refused the same way as /api's.
    app.use(refuseUnstorableText, dashboardRoutes(context))
  }
  app.use((req, _res, next) => {
    next(new SidecarApiError(404, 'not_found', `No endpoint ${req.method} ${req.path}.`))
  })
  app.use(answerApiError((error) => context.logger.error({ err: error }, 'unexpected error in the HTTP API')))
  const listener: RequestListener = webhooks
    ? (req, res) => (webhooks.matches(req) ? webhooks.serve(req, res) : app(req, res))
    : app
  return Object.assign(app, { listener, flushReceiver: async () => webhooks?.flush() })
}

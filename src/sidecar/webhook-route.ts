import type { IncomingMessage, ServerResponse } from 'node:http'
import type { WebhookEventQueue } from '../queue/index.js'
import { createWebhookReceiver } from '../receiver/index.js'
import { startServerSpan, type ServerSpan } from '../observability/index.js'
import { requestIdFrom } from '../observability/index.js'
import type { SidecarContext } from './context.js'
import type { Drain } from './drain.js'

export const WEBHOOK_ROUTE = '/webhooks'

export type WebhookRoute = {
  /** POST /webhooks, spelled as express would match it (any case, an optional trailing slash). */
  matches(req: IncomingMessage): boolean
  /** Answers one delivery: drain, span, receiver, then the request's metrics and access log line. */
  serve(req: IncomingMessage, res: ServerResponse): void
  /** Writes the receiver's pending queue batches. */
  flush(): Promise<void>
}

/**
 * The sidecar's webhook endpoint, served from the server's request listener before express: a delivery needs
 * the signature, size cap, JSON, dedupe and a durable enqueue, not routing, security headers or the API's error
 * mapper. It keeps what the express stack gave it: the drain's 503, the server span (carried into the event's
 * job), the per-route request metrics and the access log line, observed as observeRequests does.
 */
export function createWebhookRoute(
  context: SidecarContext,
  options: { eventQueue: WebhookEventQueue; drain?: Drain },
): WebhookRoute {
  const receiver = createWebhookReceiver({
    // Closures with no `this`: passed as they are.
    secrets: context.webhookSecrets.current,
    onSecretMiss: context.webhookSecrets.refreshOnMiss,
    queue: options.eventQueue,
    toleranceSeconds: context.config.WEBHOOK_TOLERANCE_SECONDS,
    bodyLimitBytes: context.config.WEBHOOK_BODY_LIMIT_BYTES,
    logger: context.logger,
    metrics: context.metrics.receiver,
  })
  const { logger, metrics } = context
  const log = context.config.ACCESS_LOG === 'on' ? logger.info.bind(logger) : logger.debug.bind(logger)
  const { drain } = options

  /** The request's span end, metrics and access log line, once its answer is sent or its connection gone. */
  const observe = (res: ServerResponse, span: ServerSpan, started: number, requestId: string | undefined) => {
    const status = res.headersSent ? res.statusCode : 0
    const seconds = (performance.now() - started) / 1000
    span.end(WEBHOOK_ROUTE, status)
    metrics.traffic.request({ method: 'POST', route: WEBHOOK_ROUTE, status, seconds })
    const durationMs = Math.round(seconds * 10_000) / 10
    log({ method: 'POST', route: WEBHOOK_ROUTE, status, durationMs, requestId }, 'request')
    drain?.answered()
  }

  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now()
    const span = startServerSpan('POST', req.headers)
    let requestId: string | undefined
    // 'close' follows 'finish' on every answered response, and is the only event of an aborted one; a response
    // emits it once, so `on` (no once wrapper per request).
    res.on('close', () => observe(res, span, started, requestId))
    if (drain?.refuse(res, () => (requestId = requestIdFrom(req.headers['x-request-id'])))) return
    span.run(() =>
      receiver.handle(req).then((answer) => {
        requestId = answer.requestId
        receiver.send(res, answer)
      }),
    )
  }

  return {
    matches(req) {
      if (req.method !== 'POST') return false
      const url = req.url ?? ''
      if (url === WEBHOOK_ROUTE) return true
      const query = url.indexOf('?')
      const path = (query === -1 ? url : url.slice(0, query)).toLowerCase()
      return path === WEBHOOK_ROUTE || path === `${WEBHOOK_ROUTE}/`
    },
    serve,
    flush: () => receiver.flush(),
  }
}

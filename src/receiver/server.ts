import { randomUUID } from 'node:crypto'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Registry, collectDefaultMetrics } from 'prom-client'
import type { WebhookEventQueue } from '../queue/index.js'
import { createLimitedServer, type ListenerLimits } from '../http-listener/index.js'
import { UNMATCHED_ROUTE, startServerSpan } from '../observability/index.js'
import { createReceiverMetrics } from './metrics.js'
import { errorAnswer, type DeliveryAnswer } from './delivery-answer.js'
import {
  createWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from './webhook-receiver.js'

export type ReceiverServerOptions = Omit<WebhookReceiverOptions, 'queue' | 'enqueue'> & {
  /** Where events go; `GET /readyz` pings it. */
  queue: WebhookEventQueue
  /** @defaultValue '/webhooks' */
  path?: string
  /** Timeouts and the connection cap. @defaultValue LISTENER_LIMITS */
  limits?: ListenerLimits
}

export type ReceiverServer = {
  server: Server
  receiver: WebhookReceiver
  /** Starts listening; resolves to the base URL. */
  listen(options: { port: number; host?: string }): Promise<string>
  /** Stops taking connections, answers what is in flight and writes pending batches. Leaves the queue open. */
  close(): Promise<void>
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

/** What the server answers to GET besides the webhook path. */
const SERVED: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics'])

function pathnameOf(req: IncomingMessage): string {
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

/**
 * The standalone receiver on node:http (no framework on the hot path): `POST /webhooks`, `GET /healthz`,
 * `GET /readyz` (the queue answers a ping) and `GET /metrics` (Prometheus). With tracing on, every request is a
 * server span, as in the sidecar.
 */
export function createReceiverServer(options: ReceiverServerOptions): ReceiverServer {
  const path = options.path ?? '/webhooks'
  let metrics = options.metrics
  if (!metrics) {
    const registry = new Registry()
    collectDefaultMetrics({ register: registry })
    metrics = createReceiverMetrics(registry)
  }
  const receiver = createWebhookReceiver({ ...options, metrics })
  const registry = metrics.registry

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = pathnameOf(req)
    if (pathname === path) {
      if (req.method === 'POST') return receiver.send(res, await receiver.handle(req))
      res.setHeader('allow', 'POST')
      return answerWithout(req, res, errorAnswer('method_not_allowed', `Use POST ${path}.`, randomUUID()))
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (pathname === '/healthz') return sendJson(res, 200, { status: 'ok' })
      if (pathname === '/readyz') {
        try {
          await options.queue.ping()
          return sendJson(res, 200, { status: 'ready' })
        } catch {
          return sendJson(res, 503, {
            error: {
              code: 'queue_unavailable',
              message: 'The event queue is not reachable.',
              requestId: randomUUID(),
            },
          })
        }
      }
      if (pathname === '/metrics') {
        const text = await registry.metrics()
        res.writeHead(200, { 'content-type': registry.contentType })
        return void res.end(text)
      }
    }
    answerWithout(req, res, errorAnswer('not_found', `Nothing at ${req.method} ${pathname}.`, randomUUID()))
  }

  // A request we do not read may still be sending its body, so the connection is closed after the answer.
  const answerWithout = (req: IncomingMessage, res: ServerResponse, answer: DeliveryAnswer) =>
    receiver.send(res, { ...answer, closeConnection: !req.complete })

  /** The route a request matched, for its span: a path of ours, else UNMATCHED_ROUTE (no raw paths). */
  const routeOf = (req: IncomingMessage): string => {
    const pathname = pathnameOf(req)
    if (pathname === path) return path
    const served = (req.method === 'GET' || req.method === 'HEAD') && SERVED.has(pathname)
    return served ? pathname : UNMATCHED_ROUTE
  }

  const server = createLimitedServer((req, res) => {
    // The same server span as the sidecar's (startServerSpan): the receiver carries it into the event's job.
    const span = startServerSpan(req.method ?? 'GET', req.headers)
    const end = () => span.end(routeOf(req), res.headersSent ? res.statusCode : 0)
    res.once('finish', end)
    res.once('close', end)
    span
      .run(() => route(req, res))
      .catch((error: unknown) => {
        options.onError?.(error, { requestId: 'server' })
        if (!res.headersSent)
          sendJson(res, 500, { error: { code: 'internal_error', message: 'Unexpected error.' } })
        else res.destroy()
      })
  }, options.limits)

  return {
    server,
    receiver,
    listen: ({ port, host = '127.0.0.1' }) =>
      new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          server.off('error', reject)
          const address = server.address() as AddressInfo
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
          resolve(`http://${shownHost}:${address.port}`)
        })
      }),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      await receiver.flush()
      await closed
    },
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http'
import { createWebhookReceiver, type WebhookReceiverOptions } from './webhook-receiver.js'

// The express face of the framework-free core (webhook-receiver.ts).

export type WebhookMiddlewareOptions = WebhookReceiverOptions

/** An express (or connect) request handler; typed on node:http so the receiver imports no framework. */
export type WebhookMiddleware = ((
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void) & { flush(): Promise<void> }

/**
 * The webhook endpoint as express middleware: it reads the raw body itself, so mount it before express.json().
 * It answers every request itself and never calls `next`.
 *
 * @example app.post('/webhooks', createWebhookMiddleware({ secrets, queue }))
 */
export function createWebhookMiddleware(options: WebhookMiddlewareOptions): WebhookMiddleware {
  const receiver = createWebhookReceiver(options)
  const webhookMiddleware = (req: IncomingMessage & { body?: unknown }, res: ServerResponse): void => {
    // Express 5 leaves req.body undefined unless a parser ran. Bytes from express.raw() are used as they are;
    // express.json()'s object no longer holds the bytes the signature covers and is answered 500 (parsed_body).
    void receiver.handle(req, req.body).then((answer) => receiver.send(res, answer))
  }
  return Object.assign(webhookMiddleware, { flush: () => receiver.flush() })
}

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { EnqueueResult, WebhookEventQueue } from '../queue/index.js'
import {
  UnqueueableJobError,
  createBatchingEnqueue,
  type BatchingEnqueueOptions,
  type Enqueue,
} from './batching-enqueue.js'
import { acceptedAnswer, errorAnswer, writeAnswer, type DeliveryAnswer } from './delivery-answer.js'
import { createReceiverMetrics, type ReceiverMetrics } from './metrics.js'
import { readBody as readRequestBody, type UnreadBody } from './read-body.js'
import {
  SIGNATURE_HEADER,
  SignatureVerificationError,
  createSignatureVerifier,
  type SignatureVerifier,
} from '../signing/index.js'
import { parseEnvelope } from '../webhook-envelope/index.js'
import { currentTraceparent, newRequestId, requestIdFrom } from '../observability/index.js'

/** The default body limit: 256 KiB, far above any event envelope. */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024

/** The subset of a pino logger the receiver uses. */
export type ReceiverLogger = {
  warn(fields: object, message: string): void
  error(fields: object, message: string): void
}

export type WebhookReceiverOptions = {
  /**
   * Accepted signing secrets, newest first (rotation). A function is read on every delivery, so secrets can change
   * without a restart (a sidecar picks up a newly registered webhook's secret); until it returns one, deliveries
   * are refused with no_secret.
   */
  secrets: string | readonly string[] | (() => readonly string[])
  /**
   * Called when no secret verifies a delivery (no secret yet, or a signature mismatch); resolves once the secrets
   * may have changed (a sidecar re-reads the stored ones, rate-limited), and the delivery is verified once more.
   * So a secret registered or rotated a moment ago is honoured at once.
   */
  onSecretMiss?: () => Promise<void>
  /** Where verified events go, one write per batch; coalesced with `batching`. Give this or `enqueue`. */
  queue?: Pick<WebhookEventQueue, 'addBatch'>
  /** Hook that queues one event durably, resolving once it is; replaces `queue`. */
  enqueue?: Enqueue
  /** Coalescing of concurrent deliveries into one `queue` write. */
  batching?: BatchingEnqueueOptions
  /** @defaultValue 300 */
  toleranceSeconds?: number
  /** Larger bodies are answered 413 without being read to the end. @defaultValue DEFAULT_BODY_LIMIT_BYTES */
  bodyLimitBytes?: number
  /** @defaultValue the system time */
  now?: () => Date
  /** Called with every unexpected error (a queue that cannot take the event, a bug); the answer is still sent. */
  onError?: (error: unknown, context: { requestId: string }) => void
  /** Rejections are logged at warn, failures at error (with the cause); successes are not logged. */
  logger?: ReceiverLogger
  /** @defaultValue a fresh registry */
  metrics?: ReceiverMetrics
}

/** One delivery as the receiver sees it once the body is in hand. */
export type Delivery = {
  contentType: string | undefined
  signature: string | string[] | undefined
  /** The raw bytes; anything else (a body some parser already turned into an object) is refused with 500. */
  body: unknown
  requestId?: string
}

/** The framework-free core shared by the express middleware (webhook-middleware.ts) and the standalone server. */
export type WebhookReceiver = {
  /**
   * Reads, verifies, parses and queues one delivery. Never rejects. `body`, when defined, is what a body parser
   * already made of the request: raw bytes or text are used, anything else is refused (`parsed_body`).
   */
  handle(req: IncomingMessage, body?: unknown): Promise<DeliveryAnswer>
  /** Verifies, parses and queues a delivery whose body is already read. Never rejects. */
  receive(delivery: Delivery): Promise<DeliveryAnswer>
  /** Writes an answer to the response. */
  send(res: ServerResponse, answer: DeliveryAnswer): void
  /** Writes pending queue batches and waits for those in flight. */
  flush(): Promise<void>
  readonly metrics: ReceiverMetrics
}

/** Failures a newer secret could cure; a stale timestamp or a malformed header it could not. */
const SECRET_MISSES: ReadonlySet<string> = new Set(['no_secret', 'signature_mismatch'])

/** `application/json` or any `+json` type, parameters such as charset allowed. */
function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false
  const semicolon = contentType.indexOf(';')
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase()
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** A verifier that follows a changing secret list, re-preparing its keys only when the list changes. */
function liveVerifier(
  secrets: () => readonly string[],
  toleranceSeconds: number | undefined,
): SignatureVerifier {
  let cachedFor: readonly string[] = []
  let cached = createSignatureVerifier({ secrets: [], toleranceSeconds })
  return (params) => {
    const current = secrets()
    // Compared element by element with a copy: no string built per delivery, and a list changed in place counts.
    if (!sameList(current, cachedFor)) {
      cached = createSignatureVerifier({ secrets: current, toleranceSeconds })
      cachedFor = [...current]
    }
    return cached(params)
  }
}

export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const verify =
    typeof options.secrets === 'function'
      ? liveVerifier(options.secrets, options.toleranceSeconds)
      : createSignatureVerifier({
          secrets: options.secrets,
          toleranceSeconds: options.toleranceSeconds,
        })
  const hasSecret =
    typeof options.secrets === 'function' ||
    (typeof options.secrets === 'string' ? [options.secrets] : options.secrets).some(
      (s) => typeof s === 'string' && s.length > 0,
    )
  if (!hasSecret) {
    throw new SignatureVerificationError(
      'no_secret',
      'No webhook secret is configured; pass the secret the bank returned at registration.',
    )
  }
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES
  const now = options.now ?? (() => new Date())
  const metrics = options.metrics ?? createReceiverMetrics()
  const batching = options.queue
    ? createBatchingEnqueue(options.queue, {
        ...options.batching,
        onBatch: (size) => metrics.batch(size),
        onBatchError: (error, size) =>
          options.logger?.error(
            { err: error, size },
            'webhook batch write failed; writing its events one by one',
          ),
      })
    : undefined
  const enqueue = options.enqueue ?? batching
  if (!enqueue) throw new TypeError('createWebhookReceiver needs a queue or an enqueue hook.')

  const unsupported = (requestId: string, closeConnection: boolean) =>
    errorAnswer(
      'unsupported_media_type',
      'Webhook deliveries must have Content-Type: application/json.',
      requestId,
      { closeConnection },
    )
  const tooLarge = (requestId: string) =>
    errorAnswer('payload_too_large', `The body is larger than the ${limit}-byte limit.`, requestId, {
      closeConnection: true,
    })

  const finish = (answer: DeliveryAnswer, requestId: string): DeliveryAnswer => {
    metrics.record(answer.outcome, answer.reason)
    if (answer.status >= 500)
      options.logger?.error({ requestId, reason: answer.reason }, 'webhook delivery failed')
    else if (answer.status >= 400) {
      options.logger?.warn({ requestId, reason: answer.reason }, 'webhook delivery rejected')
    }
    return answer
  }

  // Deliveries arrive many per millisecond under load: one ISO string per millisecond serves them all.
  let isoMs = Number.NaN
  let iso = ''
  const isoOf = (date: Date): string => {
    const ms = date.getTime()
    if (ms !== isoMs) {
      iso = date.toISOString()
      isoMs = ms
    }
    return iso
  }

  /** The refusal when the signature does not verify (before any re-read of the secrets), else undefined. */
  const attempt = (delivery: Delivery, receivedAt: Date): SignatureVerificationError | undefined => {
    try {
      verify({ payload: delivery.body, header: delivery.signature, now: receivedAt })
      return undefined
    } catch (error) {
      if (error instanceof SignatureVerificationError) return error
      throw error
    }
  }

  /** After a secret miss: one re-read of the secrets, then the delivery verified once more. */
  const verifiedAfterMiss = async (
    delivery: Delivery,
    receivedAt: Date,
    failure: SignatureVerificationError,
  ): Promise<SignatureVerificationError | undefined> => {
    if (!options.onSecretMiss || !SECRET_MISSES.has(failure.reason)) return failure
    await options.onSecretMiss()
    return attempt(delivery, receivedAt)
  }

  // One async function per delivery, no closures: the signature is checked synchronously, and only a secret miss
  // awaits the re-read of the secrets.
  const verifiedBody = async (delivery: Delivery, requestId: string): Promise<DeliveryAnswer> => {
    const receivedAt = now()
    let failure = attempt(delivery, receivedAt)
    if (failure) failure = await verifiedAfterMiss(delivery, receivedAt, failure)
    if (failure) return errorAnswer(failure.reason, failure.message, requestId)
    const parsed = parseEnvelope(delivery.body as Uint8Array | string)
    if (!parsed.ok) return errorAnswer(parsed.code, parsed.message, requestId, { details: parsed.details })
    let result: EnqueueResult
    // The delivery's server span (startServerSpan, in either server), carried in the job to the worker's span.
    const traceparent = currentTraceparent()
    try {
      result = await enqueue({
        eventId: parsed.eventId,
        type: parsed.type,
        event: parsed.event,
        eventJson: parsed.text,
        receivedAt: isoOf(receivedAt),
        ...(parsed.ignored ? { ignored: parsed.ignored } : {}),
        ...(traceparent ? { traceparent } : {}),
      })
    } catch (error) {
      options.onError?.(error, { requestId })
      if (error instanceof UnqueueableJobError) {
        options.logger?.error(
          { requestId, eventId: parsed.eventId, err: error.cause },
          'webhook event not queued',
        )
        return errorAnswer(
          'unqueueable_event',
          'The queue refused this event (not the others sent with it).',
          requestId,
        )
      }
      options.logger?.error({ requestId, err: error }, 'webhook queue write failed')
      result = 'failed'
    }
    if (result === 'failed') {
      return errorAnswer(
        'queue_unavailable',
        'The event queue cannot take the event now; retry later.',
        requestId,
      )
    }
    return acceptedAnswer(parsed.eventId, result, parsed.ignored, requestId)
  }

  const failed = (error: unknown, requestId: string): DeliveryAnswer => {
    options.onError?.(error, { requestId })
    return finish(errorAnswer('internal_error', 'The receiver failed unexpectedly.', requestId), requestId)
  }

  const unread = (read: UnreadBody, requestId: string): DeliveryAnswer => {
    if (read === 'too_large') return tooLarge(requestId)
    if (read === 'not_readable') {
      return errorAnswer(
        'parsed_body',
        'The request body was already read by another middleware. Mount the webhook middleware before ' +
          'express.json() (or any body parser), so it receives the raw bytes the signature covers.',
        requestId,
      )
    }
    return errorAnswer(
      'invalid_request',
      'The request body could not be read to its declared length.',
      requestId,
      {
        closeConnection: true,
      },
    )
  }

  const handleRequest = async (
    req: IncomingMessage,
    body: unknown,
    requestId: string,
  ): Promise<DeliveryAnswer> => {
    const contentType = req.headers['content-type']
    const signature = req.headers[SIGNATURE_HEADER]
    // `return await`: an async function that returns a promise adopts it in two more microtask turns.
    if (body !== undefined) return await receiveChecked({ contentType, signature, body }, requestId)
    // Checked before reading so a wrong type or an oversized body is refused without reading it.
    if (!isJson(contentType)) return unsupported(requestId, !req.complete)
    const read = await readRequestBody(req, limit)
    if (!Buffer.isBuffer(read)) return unread(read, requestId)
    return await verifiedBody({ contentType, signature, body: read }, requestId)
  }

  return {
    metrics,
    async handle(req, body) {
      const requestId = requestIdFrom(req.headers['x-request-id'])
      try {
        return finish(await handleRequest(req, body, requestId), requestId)
      } catch (error) {
        return failed(error, requestId)
      }
    },
    async receive(delivery) {
      const requestId = delivery.requestId ?? newRequestId()
      try {
        return finish(await receiveChecked(delivery, requestId), requestId)
      } catch (error) {
        return failed(error, requestId)
      }
    },
    send: writeAnswer,
    flush: async () => batching?.flush(),
  }

  async function receiveChecked(delivery: Delivery, requestId: string): Promise<DeliveryAnswer> {
    if (!isJson(delivery.contentType)) return unsupported(requestId, false)
    const { body } = delivery
    const size =
      typeof body === 'string' ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.byteLength : 0
    if (size > limit) return tooLarge(requestId)
    return await verifiedBody(delivery, requestId)
  }
}

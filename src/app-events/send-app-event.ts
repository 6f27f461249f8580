import type { StoredAppEvent } from '../store/index.js'
import { injectTraceHeaders } from '../observability/index.js'
import { SIGNATURE_HEADER, signPayload } from '../signing/index.js'

// The signed POST of one event to the company's app, and the envelope it carries: no database, no queue.

/** What the app receives: the bank's envelope shape. */
export type AppEventEnvelope = {
  id: string
  type: string
  createdAt: string
  data: Record<string, unknown>
}

export function appEventEnvelope(event: StoredAppEvent): AppEventEnvelope {
  return { id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data }
}

/** The app did not take an event. The URL's query and the signing secret never appear in it. */
export class AppEventDeliveryError extends Error {
  override readonly name = 'AppEventDeliveryError'
  readonly code = 'app_event_delivery_failed'
  /** The HTTP status, when the app answered. */
  readonly status: number | undefined

  constructor(message: string, status?: number, options?: { cause?: unknown }) {
    super(message, options)
    this.status = status
  }
}

export type SendAppEventOptions = {
  url: string
  secret: string
  /** Signing time. */
  now: Date
  /** @defaultValue globalThis.fetch */
  fetch?: typeof fetch
  /** @defaultValue 10000 */
  timeoutMs?: number
}

/**
 * POSTs one event to the app as JSON, signed like the bank's deliveries: `Service-Signature: t=<unix>,v1=<hex>`,
 * the HMAC-SHA256 of `<t>.<raw body>` keyed with APP_WEBHOOK_SECRET. Any 2xx is success.
 * @throws AppEventDeliveryError on any other answer, a redirect, a timeout or no answer
 */
export async function sendAppEvent(
  envelope: AppEventEnvelope,
  options: SendAppEventOptions,
): Promise<number> {
  const body = JSON.stringify(envelope)
  const timestamp = Math.floor(options.now.getTime() / 1000)
  const fetchFn = options.fetch ?? globalThis.fetch
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'bankrec-app-events',
    [SIGNATURE_HEADER]: signPayload({ payload: body, secret: options.secret, timestamp }),
  }
  injectTraceHeaders(headers)
  let response: Response
  try {
    response = await fetchFn(options.url, {
      method: 'POST',
      headers,
      body,
      // A redirected POST would lose its body or its method; the app's URL must be the final one.
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    })
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError'
    throw new AppEventDeliveryError(
      timedOut ? 'The app did not answer in time.' : 'The app could not be reached.',
      undefined,
      { cause: error },
    )
  }
  await response.body?.cancel()
  if (response.status >= 200 && response.status < 300) return response.status
  const hint = response.status >= 300 && response.status < 400 ? '; set APP_WEBHOOK_URL to the final URL' : ''
  throw new AppEventDeliveryError(`The app answered ${response.status}${hint}.`, response.status)
}

import { SIGNATURE_HEADER, signPayload } from '../signing/index.js'
import type { AlertNotice, AlertSinkName, JsonAlertBody, SlackMessage } from '../alerts/index.js'

export type AlertDeliveryFailure = 'status' | 'network' | 'timeout'

/**
 * A sink did not take the notice. `retryable` tells the queue whether another attempt can help (no answer,
 * 408, 429, 5xx) or the request itself is wrong (a 3xx, which is never followed, or any other 4xx: a bad URL or
 * payload). The sink's URL, which
 * for Slack carries its token, and the signing secret never appear in it.
 */
export class AlertDeliveryError extends Error {
  override readonly name = 'AlertDeliveryError'
  readonly code = 'alert_delivery_failed'
  readonly sink: AlertSinkName
  readonly failure: AlertDeliveryFailure
  /** The HTTP status, when the sink answered. */
  readonly status: number | undefined
  readonly retryable: boolean
  /** From Retry-After, when the sink sent one. */
  readonly retryAfterMs: number | undefined

  constructor(init: {
    sink: AlertSinkName
    failure: AlertDeliveryFailure
    status?: number
    retryAfterMs?: number | undefined
    detail?: string
  }) {
    const retryable =
      init.status === undefined || init.status === 408 || init.status === 429 || init.status >= 500
    const what =
      init.failure === 'status'
        ? `answered ${init.status}${init.detail ? ` (${init.detail})` : ''}`
        : init.failure === 'timeout'
          ? 'did not answer in time'
          : 'could not be reached'
    super(
      `The ${init.sink} alert sink ${what}; ${retryable ? 'the delivery will be retried' : 'check its URL and payload, retrying will not help'}.`,
    )
    this.sink = init.sink
    this.failure = init.failure
    this.status = init.status
    this.retryable = retryable
    this.retryAfterMs = init.retryAfterMs
  }
}

export type SinkDeps = {
  /** @defaultValue globalThis.fetch */
  fetch?: typeof fetch
  /** @defaultValue 10000 */
  timeoutMs?: number
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const at = Date.parse(header)
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined
}

async function post(
  sink: AlertSinkName,
  url: string,
  body: string,
  headers: Record<string, string>,
  deps: SinkDeps,
): Promise<{ status: number }> {
  const fetchFn = deps.fetch ?? globalThis.fetch
  let response: Response
  try {
    response = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'bankrec-alerts', ...headers },
      body,
      // A redirect would re-send the signed alert to wherever the Location says (up to 20 hops): never follow.
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000),
    })
  } catch (error) {
    // The underlying error is dropped on purpose: its message may carry the URL.
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
    throw new AlertDeliveryError({ sink, failure: timedOut ? 'timeout' : 'network' })
  }
  const text = await response.text().catch(() => '')
  if (response.status < 200 || response.status > 299) {
    // Slack answers errors as a short code (invalid_payload, no_service): worth showing, trimmed to one line.
    const redirected = response.status >= 300 && response.status < 400
    const detail = redirected
      ? 'a redirect, which is not followed: configure the final URL'
      : text.replace(/\s+/g, ' ').trim().slice(0, 100)
    throw new AlertDeliveryError({
      sink,
      failure: 'status',
      status: response.status,
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
      detail,
    })
  }
  return { status: response.status }
}

/**
 * POSTs a message to a Slack incoming webhook.
 * @throws AlertDeliveryError on no answer or a non-2xx answer
 */
export function sendSlackAlert(
  url: string,
  message: SlackMessage,
  deps: SinkDeps = {},
): Promise<{ status: number }> {
  return post('slack', url, JSON.stringify(message), {}, deps)
}

/**
 * POSTs the JSON alert body signed like the service's own webhooks: `Service-Signature: t=<unix>,v1=<hex>`
 * over `<t>.<raw body>`, so the receiver verifies it with the same code. `Alert-Id` lets it deduplicate
 * retries.
 * @throws AlertDeliveryError on no answer or a non-2xx answer
 */
export function sendJsonAlert(
  url: string,
  body: JsonAlertBody,
  secret: string,
  deps: SinkDeps & { now?: Date } = {},
): Promise<{ status: number }> {
  const payload = JSON.stringify(body)
  const timestamp = Math.floor((deps.now ?? new Date()).getTime() / 1000)
  const signature = signPayload({ payload, secret, timestamp })
  return post('webhook', url, payload, { [SIGNATURE_HEADER]: signature, 'alert-id': body.id }, deps)
}

type LogFn = (object: Record<string, unknown>, message: string) => void
/** The part of a pino logger the log sink uses. */
export type AlertLogger = { info: LogFn; warn: LogFn; error: LogFn }

/** Writes a notice as one structured log line: critical as error, warning as warn, the rest as info. */
export function logAlert(logger: AlertLogger, notice: AlertNotice): void {
  const subject =
    'connection' in notice.subject
      ? { connectionId: notice.subject.connection.id }
      : 'transfer' in notice.subject
        ? { transferId: notice.subject.transfer.id }
        : { eventId: notice.subject.event.id }
  const line = {
    alert: {
      id: notice.id,
      type: notice.type,
      severity: notice.severity,
      kind: notice.kind,
      incidentId: notice.incidentId,
      ...subject,
      occurredAt: notice.occurredAt,
    },
    text: notice.text,
    action: notice.action,
  }
  const level = notice.severity === 'critical' ? 'error' : notice.severity === 'warning' ? 'warn' : 'info'
  logger[level](line, notice.title)
}

import type { Worker } from 'bullmq'
import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  APP_EVENTS_QUEUE,
  createBackendWorker,
  type AppEventJobData,
  type QueueBackendConfig,
} from '../queue/index.js'
import { SIGNATURE_HEADER, signPayload } from '../signing/index.js'
import {
  getAppEvent,
  markAppEventDelivered,
  recordAppEventFailure,
  type Database,
  type StoredAppEvent,
} from '../store/index.js'

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

// ── the signed POST ─────────────────────────────────────────────────────────────────────────────────────────────

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
  let response: Response
  try {
    response = await fetchFn(options.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'bankrec-app-events',
        [SIGNATURE_HEADER]: signPayload({ payload: body, secret: options.secret, timestamp }),
      },
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

// ── sending an outbox row, and the worker that takes the app-events queue ───────────────────────────────────────

export type AppEventWorkerDeps = {
  db: Kysely<Database>
  backend: QueueBackendConfig
  /** APP_WEBHOOK_URL */
  url: string
  /** APP_WEBHOOK_SECRET */
  secret: string
  clock: Clock
  logger: Logger
  /** @defaultValue 4 */
  concurrency?: number
  fetch?: typeof fetch
  /** @defaultValue 10000 */
  timeoutMs?: number
}

export type AppEventOutcome = 'delivered' | 'skipped'

export type AppEventSender = Pick<
  AppEventWorkerDeps,
  'db' | 'url' | 'secret' | 'clock' | 'fetch' | 'timeoutMs'
>

/**
 * Sends one outbox row to the app and marks it delivered; a refusal or no answer is recorded on the row and
 * thrown, for the caller's retry. The same for the queue's worker and for a dispatcher sending in place.
 */
export async function deliverAppEvent(deps: AppEventSender, event: StoredAppEvent): Promise<void> {
  try {
    await sendAppEvent(appEventEnvelope(event), {
      url: deps.url,
      secret: deps.secret,
      now: deps.clock.now(),
      fetch: deps.fetch,
      timeoutMs: deps.timeoutMs,
    })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    await recordAppEventFailure(deps.db, event.id, message, deps.clock.now())
    throw error
  }
  await markAppEventDelivered(deps.db, event.id, deps.clock.now())
}

/**
 * Delivers outbox rows to the app, one job per event: the retries of an event the dispatcher could not send in
 * place, and rows the rescan found. A row already delivered (a re-queued job) is skipped, so the app sees an
 * event more than once only when its answer was lost: delivery is at least once, with a stable id.
 */
export function createAppEventWorker(deps: AppEventWorkerDeps): Worker<AppEventJobData, AppEventOutcome> {
  return createBackendWorker<AppEventJobData, AppEventOutcome>(
    APP_EVENTS_QUEUE,
    deps.backend,
    async (job) => {
      const { eventId } = job.data
      const event = await getAppEvent(deps.db, eventId)
      if (!event || event.deliveredAt) return 'skipped'
      const logger = deps.logger.child({ eventId, type: event.type })
      try {
        await deliverAppEvent(deps, event)
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        logger.warn({ attempt: job.attemptsMade + 1, error: message }, 'app event not delivered; will retry')
        throw error
      }
      logger.info('app event delivered')
      return 'delivered'
    },
    { concurrency: deps.concurrency ?? 4 },
  )
}

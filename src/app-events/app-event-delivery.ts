import { createHash } from 'node:crypto'
import type { Queue, Worker } from 'bullmq'
import type { Kysely } from 'kysely'
import pLimit from 'p-limit'
import pg from 'pg'
import type { Clock } from '../clock/index.js'
import {
  SpanKind,
  inSpan,
  injectTraceHeaders,
  recallTraceContext,
  type Logger,
} from '../observability/index.js'
import {
  APP_EVENTS_CHANNEL_PREFIX,
  getAppEvent,
  leaseAppEvents,
  markAppEventDelivered,
  recordAppEventFailure,
  undeliveredAppEventIds,
  type Database,
  type StoredAppEvent,
} from '../store/index.js'
import {
  APP_EVENTS_QUEUE,
  APP_EVENT_JOB_OPTIONS,
  appEventJobId,
  createBackendQueue,
  createBackendWorker,
  type AppEventJobData,
  type QueueBackendConfig,
} from '../queue/index.js'
import { SIGNATURE_HEADER, signPayload } from '../signing/index.js'

// Sending the outbox to the company's app, one file from the commit to the POST: the dispatcher hears a commit's
// NOTIFY and sends its rows in place; what fails there, and what the rescan finds, becomes a job of the
// app-events queue, whose worker sends it the same way (deliverAppEvent).

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
    await inSpan(
      'POST app event',
      {
        kind: SpanKind.CLIENT,
        parent: recallTraceContext(event.id),
        attributes: { 'http.request.method': 'POST', 'bankrec.app_event.type': event.type },
      },
      async (span) => {
        const status = await sendAppEvent(appEventEnvelope(event), {
          url: deps.url,
          secret: deps.secret,
          now: deps.clock.now(),
          fetch: deps.fetch,
          timeoutMs: deps.timeoutMs,
        })
        span.setAttribute('http.response.status_code', status)
      },
    )
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

// ── the dispatcher: in place on NOTIFY, and the rescan ──────────────────────────────────────────────────────────

export type AppEventDispatcherDeps = {
  db: Kysely<Database>
  /** For the LISTEN connection, which stays open outside the pool. */
  connectionString: string
  schema: string
  queue: Queue<AppEventJobData>
  clock: Clock
  logger: Logger
  /** How often undelivered rows without a job are queued again. @defaultValue 60 */
  rescanSeconds?: number
  /** First retry delay of a failed delivery; doubles per attempt. @defaultValue 2000 */
  retryDelayMs?: number
  /**
   * Sends an event in place as its NOTIFY arrives (the worker role); a failure goes to the queue for its
   * retries. Without it every event becomes a job.
   */
  send?: (event: StoredAppEvent) => Promise<void>
  /** In-place sends at a time. @defaultValue 4 */
  concurrency?: number
}

export type AppEventDispatcher = {
  /**
   * Queues every undelivered event recorded more than `graceMs` ago (5 s by default: younger ones are left to
   * their NOTIFY); returns how many it queued.
   */
  requeue(graceMs?: number): Promise<number>
  close(): Promise<void>
}

const RESCAN_BATCH = 500
/** How long an in-place send holds its row: longer than a send's timeout, so no one else sends it meanwhile. */
const LEASE_MS = 30_000
const RECONNECT_MS = 5_000
/** A row younger than this is left to its NOTIFY, which is on its way. */
const RESCAN_GRACE_MS = 5_000

/**
 * Turns committed outbox rows into deliveries: at once through LISTEN/NOTIFY (sent by publishAppEvents, delivered
 * by PostgreSQL only on commit), and by a periodic rescan that queues rows nobody sent (a crash before the send,
 * a dropped LISTEN connection, a job that used all its attempts). With `send`, the NOTIFYs of one commit are
 * leased together and sent in place, with no queue hop: every listening process hears them, and the lease lets
 * one send each. What fails in place, and everything without `send`, becomes a job; a job id is the event id,
 * so an event queued twice still has one job at a time.
 */
export async function startAppEventDispatcher(deps: AppEventDispatcherDeps): Promise<AppEventDispatcher> {
  const channel = `${APP_EVENTS_CHANNEL_PREFIX}${createHash('md5').update(deps.schema).digest('hex')}`
  let closed = false
  let client: pg.Client | undefined
  let reconnect: NodeJS.Timeout | undefined
  const jobOptions = {
    ...APP_EVENT_JOB_OPTIONS,
    backoff: {
      ...APP_EVENT_JOB_OPTIONS.backoff,
      delay: deps.retryDelayMs ?? APP_EVENT_JOB_OPTIONS.backoff.delay,
    },
  }

  const enqueue = async (ids: readonly string[], delay?: number) => {
    if (ids.length === 0) return
    await deps.queue.addBulk(
      ids.map((eventId) => ({
        name: 'app-event',
        data: { eventId },
        opts: { ...jobOptions, jobId: appEventJobId(eventId), delay },
      })),
    )
  }

  const limit = pLimit(deps.concurrency ?? 4)
  const sendInPlace = async (ids: readonly string[], send: (event: StoredAppEvent) => Promise<void>) => {
    const now = deps.clock.now()
    const leased = await leaseAppEvents(deps.db, ids, { now, until: new Date(now.getTime() + LEASE_MS) })
    const failed: string[] = []
    await Promise.all(
      leased.map((event) =>
        limit(() =>
          send(event).catch((error: unknown) => {
            deps.logger.warn(
              {
                eventId: event.id,
                type: event.type,
                error: error instanceof Error ? error.message : String(error),
              },
              'app event not delivered; will retry',
            )
            failed.push(event.id)
          }),
        ),
      ),
    )
    await enqueue(failed, jobOptions.backoff.delay)
  }

  // The NOTIFYs of one commit arrive together: one lease (or one add) for all of them.
  let told: string[] = []
  const flush = () => {
    const ids = told
    told = []
    const handled = deps.send ? sendInPlace(ids, deps.send) : enqueue(ids)
    handled.catch((error: unknown) =>
      deps.logger.warn(
        { err: error, events: ids.length },
        'could not send or queue app events; the rescan will',
      ),
    )
  }

  const listen = async () => {
    const next = new pg.Client({ connectionString: deps.connectionString })
    next.on('notification', (message) => {
      if (message.channel !== channel || !message.payload) return
      if (told.push(message.payload) === 1) setImmediate(flush)
    })
    next.on('error', (error) => {
      deps.logger.warn({ err: error }, 'app event listener lost its database connection; reconnecting')
      void next.end().catch(() => undefined)
      if (client === next) client = undefined
      scheduleReconnect()
    })
    await next.connect()
    await next.query(`listen ${channel}`)
    if (closed) {
      await next.end()
      return
    }
    client = next
  }

  const scheduleReconnect = () => {
    if (closed || reconnect) return
    reconnect = setTimeout(() => {
      reconnect = undefined
      listen()
        .then(() => requeue(0))
        .catch((error: unknown) => {
          deps.logger.warn({ err: error }, 'app event listener could not reconnect; retrying')
          scheduleReconnect()
        })
    }, RECONNECT_MS)
    reconnect.unref()
  }

  const requeue = async (graceMs = RESCAN_GRACE_MS) => {
    // No cutoff at grace 0: the database stamps rows in microseconds and the clock reads milliseconds, so a row
    // written in the current millisecond would fall after a cutoff of "now".
    const now = deps.clock.now()
    const ids = await undeliveredAppEventIds(deps.db, {
      before: graceMs > 0 ? new Date(now.getTime() - graceMs) : undefined,
      now,
      limit: RESCAN_BATCH,
    })
    await enqueue(ids)
    return ids.length
  }

  await listen()
  // Rows committed before this process listened got their NOTIFY nowhere.
  await requeue(0)
  let scanning = false
  const timer = setInterval(
    () => {
      if (scanning) return
      scanning = true
      requeue()
        .catch((error: unknown) => deps.logger.warn({ err: error }, 'app event rescan failed'))
        .finally(() => (scanning = false))
    },
    (deps.rescanSeconds ?? 60) * 1000,
  )
  timer.unref()

  return {
    requeue,
    async close() {
      closed = true
      clearInterval(timer)
      if (reconnect) clearTimeout(reconnect)
      await client?.end().catch(() => undefined)
      client = undefined
    },
  }
}

// ── starting delivery (the worker role) ─────────────────────────────────────────────────────────────────────────

export type AppEventDelivery = {
  /** Queues every undelivered event now; returns how many. */
  requeue(graceMs?: number): Promise<number>
  close(): Promise<void>
}

export type AppEventDeliveryDeps = {
  db: Kysely<Database>
  connectionString: string
  schema: string
  backend: QueueBackendConfig
  clock: Clock
  logger: Logger
  /** APP_WEBHOOK_URL and APP_WEBHOOK_SECRET; null records events without sending them. */
  target: { url: string; secret: string } | null
  /** @defaultValue 60 */
  rescanSeconds?: number
  /** @defaultValue 4 */
  concurrency?: number
  /** First retry delay of a failed delivery; doubles per attempt. @defaultValue 2000 */
  retryDelayMs?: number
  fetch?: typeof fetch
}

/**
 * Starts sending the outbox to the app (worker role): the queue, its worker and the dispatcher that queues
 * committed rows. Without a target nothing starts and the log says once that events are only recorded.
 */
export async function startAppEventDelivery(deps: AppEventDeliveryDeps): Promise<AppEventDelivery> {
  if (deps.target === null) {
    deps.logger.info(
      'APP_WEBHOOK_URL is not set: events for your app are recorded in the app_events table and not sent',
    )
    return { requeue: async () => 0, close: async () => undefined }
  }
  const queue: Queue<AppEventJobData> = createBackendQueue<AppEventJobData>(APP_EVENTS_QUEUE, deps.backend)
  const workerDeps = {
    db: deps.db,
    backend: deps.backend,
    url: deps.target.url,
    secret: deps.target.secret,
    clock: deps.clock,
    logger: deps.logger,
    concurrency: deps.concurrency,
    fetch: deps.fetch,
  }
  const worker: Worker = createAppEventWorker(workerDeps) as unknown as Worker
  worker.on('error', (error) => deps.logger.error({ err: error, queue: APP_EVENTS_QUEUE }, 'worker error'))
  let dispatcher: AppEventDispatcher
  try {
    dispatcher = await startAppEventDispatcher({
      db: deps.db,
      connectionString: deps.connectionString,
      schema: deps.schema,
      queue,
      clock: deps.clock,
      logger: deps.logger,
      rescanSeconds: deps.rescanSeconds,
      retryDelayMs: deps.retryDelayMs,
      send: (event) => deliverAppEvent(workerDeps, event),
      concurrency: deps.concurrency,
    })
  } catch (error) {
    await worker.close()
    await queue.close()
    throw error
  }
  deps.logger.info({ url: new URL(deps.target.url).origin }, 'sending app events')
  return {
    requeue: (graceMs) => dispatcher.requeue(graceMs),
    async close() {
      await dispatcher.close()
      await worker.close()
      await queue.close()
    },
  }
}

import { createHash } from 'node:crypto'
import type { Queue } from 'bullmq'
import type { Kysely } from 'kysely'
import pLimit from 'p-limit'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  APP_EVENTS_CHANNEL_PREFIX,
  createChannelListener,
  leaseAppEvents,
  undeliveredAppEventIds,
  type Database,
  type StoredAppEvent,
} from '../store/index.js'
import { APP_EVENT_JOB_OPTIONS, appEventJobId, type AppEventJobData } from '../queue/index.js'

// Dispatching the outbox: the dispatcher hears a commit's NOTIFY and sends its rows in place; what fails there,
// and what the rescan finds, becomes a job of the app-events queue (app-event-worker.ts).

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
export const APP_EVENT_LEASE_MS = 30_000
const RECONNECT_MS = 5_000
/** A row younger than this is left to its NOTIFY, which is on its way. */
const RESCAN_GRACE_MS = 5_000

/**
 * Turns committed outbox rows into deliveries: at once through LISTEN/NOTIFY (sent by publishAppEvents, delivered
 * by PostgreSQL only on commit), and by a periodic rescan that queues rows nobody sent (a crash before the send,
 * a dropped LISTEN connection, a job that used all its attempts). With `send`, the notified rows are leased as
 * this process has room to send them, and sent in place, with no queue hop: every listening process hears them,
 * the lease lets one send each, and a process busy sending leaves the rest to the others. What fails in place, and everything without `send`, becomes a job; a job id is the event id,
 * so an event queued twice still has one job at a time.
 */
export async function startAppEventDispatcher(deps: AppEventDispatcherDeps): Promise<AppEventDispatcher> {
  const channel = `${APP_EVENTS_CHANNEL_PREFIX}${createHash('md5').update(deps.schema).digest('hex')}`
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

  // Sends in place, pulled as this process can make them: it holds at most two rounds of sends leased (in flight
  // and next), and leases more of what it was told as they finish. Every process hears the same NOTIFYs, so what
  // one cannot send soon the others lease; leasing a whole commit at once had one process queue all its sends
  // while the others, told the same ids, sat idle (docs/performance.md, End-to-end latency).
  const concurrency = deps.concurrency ?? 4
  const limit = pLimit(concurrency)
  const unleased: string[] = []
  let held = 0
  let leasing = false
  const sendOne = (event: StoredAppEvent, send: (event: StoredAppEvent) => Promise<void>) =>
    limit(() => send(event))
      .catch(async (error: unknown) => {
        deps.logger.warn(
          {
            eventId: event.id,
            type: event.type,
            error: error instanceof Error ? error.message : String(error),
          },
          'app event not delivered; will retry',
        )
        await enqueue([event.id], jobOptions.backoff.delay)
      })
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, eventId: event.id }, 'could not queue an app event; the rescan will'),
      )
      .finally(() => {
        held--
        void leaseMore(send)
      })
  const leaseMore = async (send: (event: StoredAppEvent) => Promise<void>) => {
    if (leasing) return
    leasing = true
    try {
      while (unleased.length > 0 && held < concurrency) {
        // Ids not won here were sent, or are held by another process: either way not this one's.
        const ids = unleased.splice(0, 2 * concurrency - held)
        const now = deps.clock.now()
        const leased = await leaseAppEvents(deps.db, ids, {
          now,
          until: new Date(now.getTime() + APP_EVENT_LEASE_MS),
        })
        held += leased.length
        for (const event of leased) void sendOne(event, send)
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'could not lease app events; the rescan will send them')
    } finally {
      leasing = false
    }
  }

  // The NOTIFYs of one commit arrive together: one lease (or one add) for as many of them as fit.
  let told: string[] = []
  const flush = () => {
    const ids = told
    told = []
    if (deps.send) {
      unleased.push(...ids)
      void leaseMore(deps.send)
      return
    }
    enqueue(ids).catch((error: unknown) =>
      deps.logger.warn({ err: error, events: ids.length }, 'could not queue app events; the rescan will'),
    )
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

  const listener = createChannelListener({
    connectionString: deps.connectionString,
    channel,
    onNotification: (payload) => {
      if (payload && told.push(payload) === 1) setImmediate(flush)
    },
    // Rows committed while this process was not listening got their NOTIFY nowhere.
    onListening: () => requeue(0),
    onError: (error, phase) =>
      phase === 'lost'
        ? deps.logger.warn({ err: error }, 'app event listener lost its database connection; reconnecting')
        : deps.logger.warn({ err: error }, 'app event listener could not reconnect; retrying'),
    reconnectDelayMs: RECONNECT_MS,
    unref: true,
    // Start-up fails without its listener; later losses are retried.
    firstFailure: 'reject',
  })
  await listener.start()
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
      clearInterval(timer)
      await listener.close()
    },
  }
}

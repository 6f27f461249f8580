import { createHash } from 'node:crypto'
import type { Queue } from 'bullmq'
import type { Kysely } from 'kysely'
import pg from 'pg'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import { APP_EVENTS_CHANNEL_PREFIX, undeliveredAppEventIds, type Database } from '../store/index.js'
import { APP_EVENT_JOB_OPTIONS, appEventJobId, type AppEventJobData } from '../queue/index.js'

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
const RECONNECT_MS = 5_000
/** A row younger than this is left to its NOTIFY, which is on its way. */
const RESCAN_GRACE_MS = 5_000

/**
 * Turns committed outbox rows into queue jobs: at once through LISTEN/NOTIFY (sent by publishAppEvent, delivered
 * by PostgreSQL only on commit), and by a periodic rescan that re-queues rows whose job was lost (a crash before
 * the add, a dropped LISTEN connection, a job that used all its attempts). A job id is the event id, so an
 * event queued twice still has one job at a time.
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

  const enqueue = async (ids: string[]) => {
    if (ids.length === 0) return
    await deps.queue.addBulk(
      ids.map((eventId) => ({
        name: 'app-event',
        data: { eventId },
        opts: { ...jobOptions, jobId: appEventJobId(eventId) },
      })),
    )
  }

  const listen = async () => {
    const next = new pg.Client({ connectionString: deps.connectionString })
    next.on('notification', (message) => {
      if (message.channel !== channel || !message.payload) return
      enqueue([message.payload]).catch((error: unknown) =>
        deps.logger.warn(
          { err: error, eventId: message.payload },
          'could not queue an app event; the rescan will',
        ),
      )
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
    const ids = await undeliveredAppEventIds(deps.db, {
      before: graceMs > 0 ? new Date(deps.clock.now().getTime() - graceMs) : undefined,
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

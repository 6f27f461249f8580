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
import {
  getAppEvent,
  markAppEventDelivered,
  recordAppEventFailure,
  type Database,
  type StoredAppEvent,
} from '../store/index.js'
import { appEventEnvelope } from './app-event.js'
import { sendAppEvent } from './send-app-event.js'

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

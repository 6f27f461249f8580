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
import { getAppEvent, markAppEventDelivered, recordAppEventFailure, type Database } from '../store/index.js'
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

/**
 * Delivers outbox rows to the app, one job per event. A row already delivered (a re-queued job) is skipped, so
 * the app sees an event more than once only when its answer was lost: delivery is at least once, with a stable id.
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
        await sendAppEvent(appEventEnvelope(event), {
          url: deps.url,
          secret: deps.secret,
          now: deps.clock.now(),
          fetch: deps.fetch,
          timeoutMs: deps.timeoutMs,
        })
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        await recordAppEventFailure(deps.db, eventId, message, deps.clock.now())
        logger.warn({ attempt: job.attemptsMade + 1, error: message }, 'app event not delivered; will retry')
        throw error
      }
      await markAppEventDelivered(deps.db, eventId, deps.clock.now())
      logger.info('app event delivered')
      return 'delivered'
    },
    { concurrency: deps.concurrency ?? 4 },
  )
}

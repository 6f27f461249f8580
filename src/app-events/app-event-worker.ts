import type { Worker } from 'bullmq'
import type { Logger } from '../observability/index.js'
import { getAppEvent } from '../store/index.js'
import {
  APP_EVENTS_QUEUE,
  createBackendWorker,
  type AppEventJobData,
  type QueueBackendConfig,
} from '../queue/index.js'
import { deliverAppEvent, type AppEventSender } from './deliver-app-event.js'

export type AppEventWorkerDeps = AppEventSender & {
  backend: QueueBackendConfig
  logger: Logger
  /** @defaultValue 4 */
  concurrency?: number
}

export type AppEventOutcome = 'delivered' | 'skipped'

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

import type { Queue, Worker } from 'bullmq'
import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import type { Database } from '../store/index.js'
import {
  APP_EVENTS_QUEUE,
  createBackendQueue,
  type AppEventJobData,
  type QueueBackendConfig,
} from '../queue/index.js'
import { startAppEventDispatcher, type AppEventDispatcher } from './app-event-dispatcher.js'
import { createAppEventWorker } from './app-event-worker.js'
import { deliverAppEvent } from './deliver-app-event.js'
import { createDeliveredMarks } from './delivered-marks.js'

// Starting delivery of the outbox to the company's app (the worker role): the app-events queue, its worker
// (app-event-worker.ts) and the dispatcher that sends committed rows in place (app-event-dispatcher.ts), each
// sending a row the same way (deliver-app-event.ts, whose POST is send-app-event.ts).

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
  /** Retry jobs at once (WORKER_CONCURRENCY). @defaultValue 4 */
  concurrency?: number
  /** Events sent in place at once as their NOTIFYs arrive (APP_EVENTS_CONCURRENCY). @defaultValue 16 */
  sendConcurrency?: number
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
    markDelivered: createDeliveredMarks(deps.db),
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
      concurrency: deps.sendConcurrency ?? 16,
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

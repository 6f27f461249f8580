import type { Worker } from 'bullmq'
import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import { createBackendWorker, type QueueBackendConfig } from '../queue/backend.js'
import { WEBHOOK_EVENTS_QUEUE, type WebhookJobData } from '../queue/index.js'
import type { Database } from '../store/index.js'
import { handleWebhookEvent, type HandledOutcome, type WebhookEventEffects } from './handle-webhook-event.js'

export type EventWorkerDeps = {
  db: Kysely<Database>
  backend: QueueBackendConfig
  effects: WebhookEventEffects
  clock: Clock
  logger: Logger
  /** @defaultValue 4 */
  concurrency?: number
  /**
   * How long a job stays locked to a worker that stopped renewing it (crashed): another worker takes it over
   * after this. @defaultValue BullMQ's 30000
   */
  jobLockMs?: number
}

/** The envelope's `id` when it has one; else the job id, which the receiver derived from the delivery. */
function eventIdOf(event: unknown, jobId: string | undefined): string {
  const id = typeof event === 'object' && event !== null ? (event as { id?: unknown }).id : undefined
  return typeof id === 'string' ? id : String(jobId)
}

/** Processes verified webhook deliveries from the receiver's queue, each event's effects once. */
export function createEventWorker(deps: EventWorkerDeps): Worker<WebhookJobData, HandledOutcome> {
  return createBackendWorker<WebhookJobData, HandledOutcome>(
    WEBHOOK_EVENTS_QUEUE,
    deps.backend,
    async (job) => {
      const eventId = eventIdOf(job.data.event, job.id)
      const outcome = await handleWebhookEvent(
        deps.db,
        {
          eventId,
          type: job.name,
          event: job.data.event,
          receivedAt: job.data.receivedAt,
          ignored: job.data.ignored,
        },
        deps.effects,
        deps.clock.now(),
      )
      // The body stays out of the log: it is kept in uninterpretable_events for whoever needs it.
      if (outcome === 'uninterpretable')
        deps.logger.warn({ eventId, type: job.name }, 'webhook event not interpretable')
      else deps.logger.info({ eventId, type: job.name, outcome }, 'webhook event handled')
      return outcome
    },
    {
      concurrency: deps.concurrency ?? 4,
      ...(deps.jobLockMs ? { lockDuration: deps.jobLockMs, stalledInterval: deps.jobLockMs } : {}),
    },
  )
}

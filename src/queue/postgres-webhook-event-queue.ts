import { sql, type Kysely } from 'kysely'
import type { Database } from '../store/index.js'
import { createBackendQueue, type QueueBackendConfig } from './backend.js'
import { WEBHOOK_EVENTS_QUEUE, WEBHOOK_JOB_OPTIONS, jobIdFor } from './queues.js'
import type { WebhookJobData } from './webhook-event-queue.js'
import type { EnqueueResult, WebhookEventQueue } from './webhook-event-queue.js'

export type PostgresWebhookEventQueueOptions = {
  db: Kysely<Database>
  backend: Extract<QueueBackendConfig, { kind: 'postgres' }>
}

/**
 * The webhook event queue on BullMQ's PostgreSQL backend (runs without REDIS_URL). The jobs are added first
 * (job id = event id, so a redelivery adds nothing), then the event ids are marked received: a delivery is
 * answered "duplicate" only once its job is known to be durable, and a crash between the two steps makes the
 * redelivery add (a no-op) and mark again.
 */
export function createPostgresWebhookEventQueue(
  options: PostgresWebhookEventQueueOptions,
): WebhookEventQueue {
  const queue = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, options.backend, WEBHOOK_JOB_OPTIONS)
  return {
    async addBatch(jobs) {
      if (jobs.length === 0) return []
      await queue.addBulk(
        jobs.map((job) => ({
          name: job.type,
          data: {
            event: job.event,
            receivedAt: job.receivedAt,
            ...(job.ignored ? { ignored: job.ignored } : {}),
          },
          opts: { ...WEBHOOK_JOB_OPTIONS, jobId: jobIdFor(job.eventId) },
        })),
      )
      const inserted = await options.db
        .insertInto('received_events')
        .values([...new Set(jobs.map((job) => job.eventId))].map((event_id) => ({ event_id })))
        .onConflict((oc) => oc.column('event_id').doNothing())
        .returning('event_id')
        .execute()
      const fresh = new Set(inserted.map((row) => row.event_id))
      return jobs.map((job): EnqueueResult => (fresh.delete(job.eventId) ? 'queued' : 'duplicate'))
    },
    async ping() {
      await sql`select 1`.execute(options.db)
    },
    close: () => queue.close(),
  }
}

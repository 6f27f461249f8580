export {
  WEBHOOK_EVENTS_QUEUE,
  DEFAULT_QUEUE_PREFIX,
  DEDUPE_TTL_SECONDS,
  WEBHOOK_JOB_OPTIONS,
  dedupeKey,
  jobIdFor,
} from './queues.js'
export { createRedisWebhookEventQueue } from './redis-webhook-event-queue.js'
export type { RedisWebhookEventQueueOptions, WebhookJobData } from './redis-webhook-event-queue.js'
export type { WebhookEventQueue, WebhookJob, EnqueueResult, IgnoredReason } from './webhook-event-queue.js'
export { createPostgresWebhookEventQueue } from './postgres-webhook-event-queue.js'
export type { PostgresWebhookEventQueueOptions } from './postgres-webhook-event-queue.js'
export { createBackendQueue, createBackendWorker, describeQueueBackend } from './backend.js'
export type { QueueBackendConfig } from './backend.js'

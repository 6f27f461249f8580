export * from './catalogue.js'
export { createRedisWebhookEventQueue, createInboxForwarder } from './redis-webhook-event-queue.js'
export type {
  RedisWebhookEventQueueOptions,
  InboxForwarder,
  InboxForwarderOptions,
  DeadLetter,
} from './redis-webhook-event-queue.js'
export { inboxKeys } from './redis-webhook-event-queue.js'
export { createPostgresWebhookEventQueue } from './postgres-webhook-event-queue.js'
export type { PostgresWebhookEventQueueOptions } from './postgres-webhook-event-queue.js'
export { createBackendQueue, createBackendWorker, describeQueueBackend } from './backend.js'
export type { JobObserver, JobOutcome, QueueBackendConfig } from './backend.js'

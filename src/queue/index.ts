export * from './catalogue.js'
export { createRedisWebhookEventQueue } from './redis-webhook-event-queue.js'
export type { RedisWebhookEventQueueOptions } from './redis-webhook-event-queue.js'
export { createInboxForwarder } from './inbox-forwarder.js'
export type { InboxForwarder, InboxForwarderOptions, DeadLetter } from './inbox-forwarder.js'
export { inboxKeys } from './webhook-inbox.js'
export type {
  WebhookEventQueue,
  WebhookJob,
  WebhookJobData,
  EnqueueResult,
  IgnoredReason,
} from './webhook-event-queue.js'
export { createPostgresWebhookEventQueue } from './postgres-webhook-event-queue.js'
export type { PostgresWebhookEventQueueOptions } from './postgres-webhook-event-queue.js'
export { createBackendQueue, createBackendWorker, describeQueueBackend } from './backend.js'
export type { QueueBackendConfig } from './backend.js'

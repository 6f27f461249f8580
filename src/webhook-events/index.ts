export { createEventWorker, handleWebhookEvent, knownConnection } from './handle-webhook-event.js'
export type {
  EventWorkerDeps,
  WebhookEventEffects,
  HandledOutcome,
  ConnectionLookup,
  KnownConnection,
} from './handle-webhook-event.js'
export { interpretEvent } from '../webhook-envelope/index.js'
export type { InterpretedEvent, UninterpretableProblem } from '../webhook-envelope/index.js'
export { createEventRetention } from './event-retention.js'
export type { EventRetention, EventRetentionOptions } from './event-retention.js'

export { createEventWorker, handleWebhookEvent, knownConnection } from './handle-webhook-event.js'
export type {
  EventWorkerDeps,
  WebhookEventEffects,
  HandledOutcome,
  ConnectionLookup,
  KnownConnection,
} from './handle-webhook-event.js'
export { interpretEvent } from './interpret-event.js'
export type { InterpretedEvent, UninterpretableProblem } from './interpret-event.js'

export {
  AppEventInput,
  createAppEvents,
  publishAppEvent,
  publishAppEvents,
  stableEventId,
} from './publish-app-event.js'
export type { AppEvents } from './publish-app-event.js'
export { AppEventDeliveryError, appEventEnvelope, sendAppEvent } from './send-app-event.js'
export type { AppEventEnvelope, SendAppEventOptions } from './send-app-event.js'
export { createAppEventWorker } from './app-event-worker.js'
export type { AppEventOutcome, AppEventWorkerDeps } from './app-event-worker.js'
export { APP_EVENT_LEASE_MS, startAppEventDispatcher } from './app-event-dispatcher.js'
export { createDeliveredMarks } from './delivered-marks.js'
export type { MarkDelivered } from './delivered-marks.js'
export type { AppEventDispatcher, AppEventDispatcherDeps } from './app-event-dispatcher.js'
export { startAppEventDelivery } from './app-event-delivery.js'
export type { AppEventDelivery, AppEventDeliveryDeps } from './app-event-delivery.js'

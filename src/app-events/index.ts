export { AppEventInput, publishAppEvent, publishAppEvents } from './publish-app-event.js'
export {
  createAppEventWorker,
  sendAppEvent,
  appEventEnvelope,
  AppEventDeliveryError,
} from './app-event-worker.js'
export type {
  AppEventWorkerDeps,
  AppEventOutcome,
  AppEventEnvelope,
  SendAppEventOptions,
} from './app-event-worker.js'
export { startAppEventDispatcher } from './app-event-dispatcher.js'
export type { AppEventDispatcher, AppEventDispatcherDeps } from './app-event-dispatcher.js'
export { createAppEvents, startAppEventDelivery } from './app-events.js'
export type { AppEvents, AppEventDelivery, AppEventDeliveryDeps } from './app-events.js'

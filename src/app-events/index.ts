export {
  AppEventInput,
  createAppEvents,
  publishAppEvent,
  publishAppEvents,
  stableEventId,
} from './publish-app-event.js'
export type { AppEvents } from './publish-app-event.js'
export {
  AppEventDeliveryError,
  appEventEnvelope,
  createAppEventWorker,
  sendAppEvent,
  startAppEventDelivery,
  startAppEventDispatcher,
} from './app-event-delivery.js'
export type {
  AppEventDelivery,
  AppEventDeliveryDeps,
  AppEventDispatcher,
  AppEventDispatcherDeps,
  AppEventEnvelope,
  AppEventOutcome,
  AppEventWorkerDeps,
  SendAppEventOptions,
} from './app-event-delivery.js'

export { alertConfigOf } from './alert-config.js'
export { createAlertPipeline } from './alert-publisher.js'
export type { AlertPublisher, AlertPipeline } from './alert-publisher.js'
export { createAlertDeliveryWorker } from './alert-delivery-worker.js'
export type { AlertDeliveryWorkerDeps, DeliveryOutcome } from './alert-delivery-worker.js'
export { createConnectionHealthMonitor, observationOf } from './connection-health-monitor.js'
export type {
  ConnectionHealthMonitor,
  ConnectionHealthMonitorDeps,
  StatusChange,
} from './connection-health-monitor.js'
export { createHealthTickWorker, scheduleHealthTicks } from './health-tick-worker.js'

export { createConnectionHealthMonitor, observationOf } from './connection-health-monitor.js'
export type {
  ConnectionHealthMonitor,
  ConnectionHealthMonitorDeps,
  StatusChange,
} from './connection-health-monitor.js'
export { createHealthTickWorker, scheduleHealthTicks } from './health-tick-worker.js'

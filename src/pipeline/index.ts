export { syncRequests } from './stages.js'
export type { StageDeps, SyncRequests } from './stages.js'
export { startWorkerRole } from './worker-role.js'
export type { OutboundWorkers, WorkerRole, WorkerRoleDeps } from './worker-role.js'

export { requestConnectionSync } from './request-sync.js'
export type { SyncRequester } from './request-sync.js'
export {
  createSyncWorker,
  processSyncJob,
  syncWhenFree,
  refreshAccountsAndBalances,
  refreshConnection,
  ALL_CONNECTIONS,
} from './sync-worker.js'
export type { SyncWorkerDeps, SyncProblem, SyncJobOutcome } from './sync-worker.js'
export { runConnectionSync, ConcurrentSyncError, earlierDate } from './run-connection-sync.js'
export type { ConnectionSyncDeps, ConnectionSyncResult } from './run-connection-sync.js'
export { planSyncPage } from './plan-sync-page.js'
export { bankSyncSource } from './sync-source.js'
export type { SyncSource } from './sync-source.js'
export { requestSyncOfAllReadyConnections } from './sync-all.js'

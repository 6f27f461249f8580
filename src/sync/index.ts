export { requestConnectionSync, createRefreshPacing } from './request-sync.js'
export type { SyncRequester } from './request-sync.js'
export { createSyncWorker, processSyncJob, ALL_CONNECTIONS } from './sync-worker.js'
export type { SyncWorkerDeps } from './sync-worker.js'
export { syncWhenFree, runConnectionSync, ConcurrentSyncError, earlierDate } from './sync-connection.js'
export type {
  SyncWhenFreeDeps,
  SyncProblem,
  SyncJobOutcome,
  ConnectionSyncDeps,
  ConnectionSyncResult,
  CarriedStream,
  RefreshPacing,
} from './sync-connection.js'
export { refreshAccountsAndBalances, refreshConnection, rereadBalances } from './refresh-mirror.js'
export { planSyncPage, transactionToRow } from './plan-sync-page.js'
export { requestSyncOfAllReadyConnections } from './sync-all.js'

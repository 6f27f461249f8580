export { createDatabase, assertSchemaName } from './create-database.js'
export type { DatabaseOptions, StoreDatabase } from './create-database.js'
export { migrateToLatest, MigrationError } from './migrate.js'
export { startEmbeddedPostgres } from './embedded-postgres.js'
export type { EmbeddedPostgres, EmbeddedPostgresOptions } from './embedded-postgres.js'
export type { Database } from './database.js'
export {
  transactionToRow,
  upsertTransactions,
  deleteTransactions,
  deleteConnectionTransactions,
  deleteTransactionsNotInBackfill,
} from './transactions-repo.js'
export type { TransactionRow } from './transactions-repo.js'
export {
  getSyncStream,
  saveStreamHead,
  advanceCursor,
  recordSyncSuccess,
  recordSyncError,
  deleteSyncStream,
} from './sync-streams-repo.js'
export type { SyncStream, BootstrapState } from './sync-streams-repo.js'
export {
  noteSyncRequest,
  hasUnservedSyncRequests,
  pendingSyncRequests,
  markSyncRequestsCompleted,
  deleteSyncRequests,
} from './sync-requests-repo.js'
export { replaceConnectionAccounts } from './accounts-repo.js'
export { upsertDailyBalances } from './balances-repo.js'
export {
  observeConnection,
  recordStatus,
  purgeConnection,
  listMirroredConnections,
} from './connections-repo.js'
export type { MirroredConnection, StatusObservation } from './connections-repo.js'
export { claimEvent, isEventProcessed } from './processed-events-repo.js'
export type { EventOutcome } from './processed-events-repo.js'
export {
  saveWebhookRegistration,
  findWebhookRegistration,
  storedWebhookSecrets,
} from './webhook-registrations-repo.js'

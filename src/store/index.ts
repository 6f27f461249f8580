export { createDatabase, assertSchemaName } from './create-database.js'
export type { DatabaseOptions, StoreDatabase } from './create-database.js'
export { createChannelListener } from './channel-listener.js'
export type { ChannelListener, ChannelListenerOptions } from './channel-listener.js'
export { migrateToLatest, MigrationError } from './migrate.js'
export { startEmbeddedPostgres } from './embedded-postgres.js'
export type { EmbeddedPostgres, EmbeddedPostgresOptions } from './embedded-postgres.js'
export { claimDataDir, waitForPublished } from './data-dir-lock.js'
export type { DataDirHolder } from './data-dir-lock.js'
export type { Database, DelegatedUser } from './database.js'
export {
  upsertTransactions,
  transactionUpsertStatement,
  encodeTransactionRows,
  EncodedTransactionRows,
  deleteTransactions,
  deleteConnectionTransactions,
  deleteTransactionsNotInBackfill,
} from './transactions-repo.js'
export type { TransactionRow } from './transactions-repo.js'
export {
  getSyncStream,
  saveStreamHead,
  advanceCursor,
  recordSyncError,
  deleteSyncStream,
  isStillBootstrapping,
} from './sync-streams-repo.js'
export type { SyncStream, BootstrapState } from './sync-streams-repo.js'
export {
  noteSyncRequest,
  hasUnservedSyncRequests,
  pendingSyncRequests,
  tryLockReadingSyncRequests,
  markSyncRequestsCompleted,
  noteConnectionReads,
  deleteSyncRequests,
} from './sync-requests-repo.js'
export type { ConnectionReadTimes } from './sync-requests-repo.js'
export { replaceConnectionAccounts } from './accounts-repo.js'
export { upsertDailyBalances } from './balances-repo.js'
export {
  observeConnection,
  recordStatus,
  purgeConnection,
  listMirroredConnections,
  getMirroredConnection,
  setMirroredStatus,
} from './connections-repo.js'
export type { MirroredConnection, StatusObservation } from './connections-repo.js'
export { claimEvent, pruneEventRecords, readEventAndConnection } from './processed-events-repo.js'
export {
  recordUninterpretableEvent,
  countUninterpretableEvents,
  uninterpretableEventKey,
  UNINTERPRETABLE_EVENT_EXCEPTION,
} from './uninterpretable-events-repo.js'
export type { UninterpretableEventWrite } from './uninterpretable-events-repo.js'
export type { EventOutcome } from './processed-events-repo.js'
export {
  saveWebhookRegistration,
  findWebhookRegistration,
  listWebhookRegistrations,
  deleteWebhookRegistration,
  storedWebhookSecrets,
  webhookSecretsVersion,
  sealPlaintextWebhookSecrets,
} from './webhook-registrations-repo.js'
export {
  storeNotices,
  stalePendingDeliveries,
  findDelivery,
  recordDeliveryAttempt,
  listAlertNotices,
} from './alert-notices-repo.js'
export type { DeliveryRef, StoredDelivery, NoticeFeedItem } from './alert-notices-repo.js'
export {
  updateConnectionHealth,
  rememberDelegatedUser,
  getConnectionHealth,
  listHealthConnectionIds,
} from './connection-health-repo.js'
export type { StoredHealth } from './connection-health-repo.js'
export { readTransactionsPage, streamTransactionPages, readAccountsPage } from './mirror-read-repo.js'
export type { MirroredTransaction, MirroredAccount, MirrorFilter } from './mirror-read-repo.js'
export { proofAccounts, proofDays, balanceRowBefore, newestMirroredChangeAt } from './balance-proof-repo.js'
export type { BalanceProofScope, ProofAccount, ProofDayRow } from './balance-proof-repo.js'
export {
  recordBalanceCheck,
  balanceProofOwed,
  listOpenBalanceExceptions,
  listPersistentBalanceExceptions,
  PERSISTENT_AFTER_RUNS,
} from './balance-exceptions-repo.js'
export type { BalanceExceptionDay, BalanceException } from './balance-exceptions-repo.js'
export {
  recordAppEvents,
  getAppEvent,
  leaseAppEvents,
  markAppEventsDelivered,
  recordAppEventFailure,
  undeliveredAppEventIds,
  APP_EVENTS_CHANNEL_PREFIX,
} from './app-events-repo.js'
export type { StoredAppEvent } from './app-events-repo.js'
export {
  storeTransferRequest,
  findTransfer,
  listTransferAttempts,
  readTransfersPage,
  listAttemptsOfTransfers,
  insertTransferAttempt,
  closeTransferAttempt,
  recordBankAnswer,
  recordTransferRejected,
  claimDueTransfers,
  lockTransfer,
  saveTransferObservation,
  postponeTransferPoll,
  portalUrlOfAccount,
} from './transfers-repo.js'
export type {
  TransferRow,
  TransferAttemptRow,
  NewTransferRequest,
  TransferObservationUpdate,
  TransferFilter,
  TransferPageItem,
} from './transfers-repo.js'
export type { BankRefusal } from './database.js'
export { applySyncPage, type AppliedSyncPage } from './sync-page-repo.js'
export type { SyncPageWrite, QuarantinedEvent } from './sync-page-repo.js'
export {
  saveStreamDialect,
  openQuarantine,
  openQuarantineProblems,
  resolveQuarantine,
} from './sync-quarantine-repo.js'
export type { QuarantineRow } from './sync-quarantine-repo.js'
export {
  upsertInvoices,
  upsertInvoice,
  getInvoice,
  getInvoices,
  listInvoices,
  voidInvoice,
  invoicesWithStaleKeys,
  writeInvoiceKeys,
} from './invoices-repo.js'
export type {
  InvoiceRow,
  InvoiceWithState,
  InvoiceStateColumns,
  InvoiceWrite,
  InvoiceKeys,
  InvoiceUpsertOutcome,
  InvoiceListFilter,
  InvoicesWrittenHook,
} from './invoices-repo.js'
export { appendAudit, listAuditEntries, verifyAuditChain } from './audit-log-repo.js'
export type { AuditAppend, AuditFilter, AuditRow, AuditVerification } from './audit-log-repo.js'
export { auditEntryHash, GENESIS_HASH } from './audit-hash.js'
// Re-exported for the matching's allocation diff, which imports it from here (src/canonical-json is its home).
export type { AuditEntry } from './audit-hash.js'
export {
  countPendingMatches,
  enqueueBackfillRemovals,
  enqueueMatches,
  enqueueUnseenMatches,
  takePendingMatches,
} from './pending-matches-repo.js'
export type { PendingMatch, PendingMatchKind } from './pending-matches-repo.js'
export {
  loadInvoicesByNumber,
  loadInvoicesById,
  loadInvoicesByNumberKeys,
  loadInvoicesForTexts,
  loadOpenInvoicesOfCustomers,
} from './matching-invoices-repo.js'
export {
  deleteTransactionReferences,
  loadExceptionsInScope,
  loadInvoiceStates,
  loadManualMatches,
  loadMatchTransactions,
  transactionInputs,
  saveInvoiceStates,
  saveTransactionReferences,
  transactionsOfPayers,
  enqueuePaymentsOfPayers,
  transactionsTouchingInvoices,
} from './matching-repo.js'
export type {
  InvoiceStateRow,
  ManualMatchInput,
  HeldAllocationRow,
  TransactionInputs,
  MatchExceptionRow,
  MatchTransactionRow,
  TransactionReferencesWrite,
} from './matching-repo.js'
export {
  allocatedWriteOffOf,
  activeAllocationsOfTransactions,
  findAllocation,
  insertAllocations,
  listAllocations,
  reverseAllocations,
} from './allocations-repo.js'
export type { AllocationFilter, AllocationRow, NewAllocation } from './allocations-repo.js'
export { findException, listExceptions, openException, resolveException } from './match-exceptions-repo.js'
export type { ExceptionFilter, ExceptionWrite } from './match-exceptions-repo.js'
export {
  registerTransferLegs,
  saveTransferLegs,
  transactionsWithKeys,
  transfersInScope,
} from './transfer-legs-repo.js'
export type { TransferLegsRow, TransferWithLegs } from './transfer-legs-repo.js'
export { rejectSuggestion, removeManualMatch, setManualMatch } from './manual-matches-repo.js'
export {
  activeDispositionsOf,
  findDisposition,
  insertDisposition,
  invoiceWriteOffsOf,
  listDispositions,
  liveDispositionOf,
  pendingInvoiceWriteOffs,
  recomputeInvoiceWrittenOff,
  setDispositionStatus,
  transactionsWithCreditFor,
} from './dispositions-repo.js'
export type { DispositionFilter, DispositionInsert, DispositionRow } from './dispositions-repo.js'
export type { ManualMatchActor } from './manual-matches-repo.js'
export { findActiveUser, insertUser, listUsers, revokeUser, setUserRole } from './users-repo.js'
export type { NewUser, UserRow } from './users-repo.js'
export {
  activeCustomerLinks,
  getCustomers,
  learnCustomerLinks,
  listCustomers,
  loadCustomersForMatching,
  removeCustomerLink,
  upsertCustomers,
  customersWithStaleKeys,
  writeCustomerKeys,
} from './customers-repo.js'
export type { CustomerLinkRow, CustomerRow, CustomerUpsertOutcome, CustomerWrite } from './customers-repo.js'
export { loadPaymentAccounting } from './payment-accounting-repo.js'
export type { PaymentAccountingRows } from './payment-accounting-repo.js'
export { loadJournalRows } from './journal-repo.js'
export type { JournalAllocationRow, JournalCreditNoteRow, JournalDispositionRow } from './journal-repo.js'
export { createSecretBox, parseSecretKey, keptSecretKey, SECRET_KEY_FILE } from './secret-box.js'
export type { SecretBox } from './secret-box.js'
export {
  decideCreditNote,
  getCreditNote,
  insertCreditNote,
  listCreditNotes,
  lockInvoice,
  pendingCreditNotesOf,
  recomputeCredited,
  voidCreditNote,
} from './credit-notes-repo.js'
export { readRuntimeSetting, writeRuntimeSetting } from './runtime-settings-repo.js'
export type { RuntimeSettingRow } from './runtime-settings-repo.js'
export { recordShadowDecisions, shadowDecisionsRecorded } from './shadow-decisions-repo.js'
export type { ShadowDecisionRow, ShadowDecisionWrite } from './shadow-decisions-repo.js'
export { engineSettlementsFirstMade, loadTrustInputs, returnsOpened } from './trust-report-repo.js'
export type { TrustInputs } from './trust-report-repo.js'
export type { ShadowDecisionDetail } from './database.js'
export type { CreditNoteRow, CreditNoteWrite } from './credit-notes-repo.js'
export { countedAgainstThreshold, listPendingApprovals } from './approvals-repo.js'
export type { PendingApprovalRow } from './approvals-repo.js'
export {
  decideRemittanceImport,
  findRemittanceImport,
  insertRemittanceImport,
  pendingRemittanceImportsOf,
} from './remittance-imports-repo.js'
export type { RemittanceImportInsert, RemittanceImportRow } from './remittance-imports-repo.js'
export { searchOpenInvoices, searchPayments } from './payment-search-repo.js'
export type { OpenInvoiceRow, PaymentSearch, PaymentSearchRow } from './payment-search-repo.js'
export { anyOf } from './any-of.js'

export { requestConnectionSync } from './sync/request-sync.js'
export type { SyncRequester } from './sync/request-sync.js'
export { createSyncWorker, processSyncJob, syncWhenFree, ALL_CONNECTIONS } from './sync-worker.js'
export type { SyncWorkerDeps, SyncProblem, SyncJobOutcome } from './sync-worker.js'
export { createEventWorker } from './event-worker.js'
export type { EventWorkerDeps } from './event-worker.js'
export { handleWebhookEvent } from './handle-webhook-event.js'
export type { WebhookEventEffects, HandledOutcome } from './handle-webhook-event.js'
export { interpretEvent } from './interpret-event/index.js'
export { knownConnection } from './known-connection.js'
export type { ConnectionLookup, KnownConnection } from './known-connection.js'
export type { InterpretedEvent, UninterpretableProblem } from './interpret-event/index.js'
export { runConnectionSync, ConcurrentSyncError } from './sync/run-connection-sync.js'
export type { ConnectionSyncDeps, ConnectionSyncResult } from './sync/run-connection-sync.js'
export { planSyncPage } from './sync/plan-sync-page.js'
export { bankSyncSource } from './sync/bank-sync-source.js'
export type { SyncSource } from './sync/sync-source.js'
export {
  balanceCheckAfterSync,
  checkConnectionBalances,
  createAccountProver,
  proveAccountDays,
  streamBalanceProof,
  sumPostedByDay,
  writeBalanceProofJson,
  writeBalanceProofText,
} from './balance-proof/index.js'
export type {
  AccountProofDay,
  BalanceCheckResult,
  BalanceProblemCode,
  BalanceProofSummary,
  ProofDay,
  ProofDayInput,
} from './balance-proof/index.js'
export { csvRecord, exportMirror, MIRROR_EXPORT_COLUMNS } from './mirror-export/index.js'
export type { MirrorExportFormat } from './mirror-export/index.js'
export {
  AGE_BUCKETS,
  createMatchingService,
  customerPayerKeys,
  DEFAULT_DISPOSITION_ACCOUNTS,
  DispositionRequestSchema,
  disposeException,
  decideDisposition,
  undoDisposition,
  InvoiceWriteOffRequestSchema,
  INVOICE_WRITE_OFF_REASONS,
  writeOffInvoice,
  giveBackTransaction,
  presentDisposition,
  HOLDING_EXCEPTION_TYPES,
  dryRunMatching,
  matchLockName,
  matchReport,
  importRemittance,
  camt054Advice,
  looksLikeXml,
  MatchingRequestError,
  parseRemittanceCsv,
  RemittanceFee,
  RemittanceFeeReason,
  RemittanceLine,
  runMatching,
  unaccountedPayments,
} from './matching/index.js'
export { matchConfig, DEFAULT_MATCH_CONFIG } from './matcher/index.js'
export type { DispositionKind, MatchConfig, MatchConfigInput } from './matcher/index.js'
export type {
  ApprovalThreshold,
  DispositionRequest,
  InvoiceWriteOffRequest,
  DryRunReport,
  ManualMatchMode,
  MatchingService,
  RemittanceAdvice,
  RemittanceResult,
  MatchReport,
  MatchRunSummary,
  ReportLine,
  UnaccountedPayment,
} from './matching/index.js'

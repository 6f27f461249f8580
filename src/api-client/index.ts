export {
  DecimalString,
  BalanceString,
  IsoDate,
  IsoDateTime,
  Uuid,
  Metadata,
  HttpsUrl,
  MoneyAmount,
  Pagination,
  PageParams,
  Limit,
  Fields,
  ErrorBody,
  ErrorDetail,
  ErrorCodes,
  listResponse,
} from './common.js'
export type { ListResponse, ErrorCode } from './common.js'
export { Institution, InstitutionStatus, InstitutionListParams } from './institutions.js'
export {
  Connection,
  SetupConnection,
  ReadyConnection,
  ConnectionStatus,
  SyncStatus,
  SetupInstructions,
  SetupNextAction,
  SetupActor,
  ConnectionCreateParams,
  ConnectionListParams,
  ConnectionCredentialsParams,
  ConnectionSyncAccepted,
} from './connections.js'
export {
  Account,
  PartialAccount,
  AccountType,
  AccountStatus,
  CurrencyCode,
  PaymentIdentifier,
  PaymentIdentifierScheme,
  AccountListParams,
  AccountGetParams,
} from './accounts.js'
export { AccountBalance, BalanceSource, BalanceListParams } from './balances.js'
export {
  Transaction,
  TransactionStatus,
  TransactionSort,
  EntryType,
  Rail,
  TRANSACTION_IDENTIFIERS,
  TransactionListParams,
  TransactionSyncParams,
  SyncEvent,
  SyncEventType,
  SyncResponse,
} from './transactions.js'
export type { SyncPageRead } from './transactions.js'
export {
  SYNC_EVENT_PROBLEMS,
  SYNC_KIND_FIELDS,
  describeSyncDialect,
  detectSyncDialect,
  readSyncEvent,
  readSyncEvents,
} from './sync-dialect.js'
export type {
  RemovedShape,
  RemovedTransaction,
  SyncChange,
  SyncDialect,
  SyncEventProblem,
  SyncEventReading,
  SyncKindField,
  UnreadableSyncEvent,
} from './sync-dialect.js'
export {
  Transfer,
  TransferStatus,
  TransferRail,
  TransferDestination,
  TransferFailureReason,
  TransferAmount,
  TransferCreateParams,
  IdempotencyKey,
  TERMINAL_TRANSFER_STATUSES,
} from './transfers.js'
export {
  WebhookRegistration,
  WebhookEventType,
  WebhookCreateParams,
  WebhookUpdateParams,
  WebhookListParams,
} from './webhooks.js'
export {
  EventEnvelope,
  KnownEvent,
  ConnectionStatusChangedData,
  SyncAvailableData,
  TestEventData,
} from './events.js'
export { createBankClient } from './client.js'
export type { BankClient, BankClientOptions } from './client.js'
export { createHttpClient } from './http.js'
export type {
  HttpClient,
  HttpClientOptions,
  CallOptions,
  RequestEvent,
  ResponseEvent,
  AttemptEndEvent,
  HttpMethod,
} from './http.js'
export {
  BankApiError,
  BankAuthenticationError,
  BankPermissionError,
  BankNotFoundError,
  BankConflictError,
  BankRateLimitError,
  BankInvalidCursorError,
  BankCursorExpiredError,
  BankValidationError,
  BankServerError,
  BankConnectionError,
  BankTimeoutError,
  ValidationError,
  ResponseValidationError,
  errorFromResponse,
} from './errors.js'
export type { BankApiErrorInit, BankErrorDetail, ConflictReason } from './errors.js'
export { decideRetry, parseRetryAfter } from './retry-policy.js'
export type { RetryInput, RetryDecision, AttemptOutcome } from './retry-policy.js'
export { listAll, listPages, syncPages } from './pagination.js'
export type { PageFetcher, SyncPage } from './pagination.js'
export { TransactionGetParams } from './transactions.js'
export type { TransactionsResource } from './transactions.js'
export { createInstitutionsResource } from './institutions.js'
export type { InstitutionsResource } from './institutions.js'
export { createConnectionsResource } from './connections.js'
export type { ConnectionsResource } from './connections.js'
export { createAccountsResource } from './accounts.js'
export type { AccountsResource, AccountFor } from './accounts.js'
export { createBalancesResource } from './balances.js'
export type { BalancesResource } from './balances.js'
export { createTransactionsResource } from './transactions.js'
export { createTransfersResource } from './transfers.js'
export type { TransfersResource, TransferWriteOptions } from './transfers.js'
export { createWebhooksResource, WebhookTestResult } from './webhooks.js'
export type { WebhooksResource } from './webhooks.js'
export { issueDetails } from './issue-details.js'
export type { IssueDetail } from './issue-details.js'

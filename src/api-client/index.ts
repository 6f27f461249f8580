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

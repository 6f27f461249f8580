// bankrec's public face: the typed client, the webhook receiver, the sandbox and the sidecar runtime.

export { createBankClient } from './api-client/index.js'
export type { BankClient, BankClientOptions, CallOptions, ListResponse } from './api-client/index.js'
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
} from './api-client/index.js'
export type { BankApiErrorInit, BankErrorDetail, ConflictReason } from './api-client/index.js'
export type {
  Institution,
  Connection,
  ConnectionStatus,
  Account,
  AccountBalance,
  Transaction,
  SyncEvent,
  SyncResponse,
  SyncChange,
  SyncDialect,
  SyncPageRead,
  UnreadableSyncEvent,
  Transfer,
  TransferStatus,
  TransferCreateParams,
  WebhookRegistration,
  WebhookEventType,
  EventEnvelope,
  KnownEvent,
} from './api-client/index.js'

export { createWebhookMiddleware, createReceiverServer, createReceiverMetrics } from './receiver/index.js'
export type {
  WebhookMiddleware,
  WebhookMiddlewareOptions,
  ReceiverServer,
  ReceiverServerOptions,
  ReceiverMetrics,
} from './receiver/index.js'
export {
  verifySignature,
  signPayload,
  SignatureVerificationError,
  SIGNATURE_HEADER,
} from './signing/index.js'
export type {
  SignPayloadParams,
  VerifySignatureParams,
  VerifiedSignature,
  SignatureFailureReason,
} from './signing/index.js'

export {
  createRedisWebhookEventQueue,
  createPostgresWebhookEventQueue,
  createInboxForwarder,
} from './queue/index.js'
export type {
  WebhookEventQueue,
  WebhookJob,
  WebhookJobData,
  EnqueueResult,
  InboxForwarder,
  InboxForwarderOptions,
} from './queue/index.js'

export { createSandbox } from './sandbox/index.js'
export type { Sandbox, SandboxOptions } from './sandbox/index.js'

export { startSidecar, OPEN_INCIDENTS_GAUGE, MATCH_RATE_GAUGE } from './sidecar/index.js'
export type {
  Sidecar,
  SidecarContext,
  SidecarOptions,
  SidecarRole,
  SidecarMetrics,
  GaugeSpec,
  GaugeSample,
  GaugeCollector,
} from './sidecar/index.js'

export { loadConfig, ConfigError } from './config/index.js'
export type { BankrecEnv } from './config/index.js'
export { DomainError } from './errors/index.js'
export type { DomainErrorDetail, DomainErrorKind } from './errors/index.js'

export { ROLES, roleAllows, assertSecondPerson, MakerCheckerError } from './users/index.js'
export type { Actor, Role } from './users/index.js'
export { createCustomers, CustomerError } from './customers/index.js'
export type { Customer, Customers, CustomersContext, LearnedLink } from './customers/index.js'
export { createCreditNotes } from './credit-notes/index.js'
export type { CreditNote, CreditNotes, CreditNoteUpsertResult } from './credit-notes/index.js'
export { dryRunMatching } from './closing/index.js'
export type { DryRunReport } from './closing/index.js'

import type {
  Account,
  ConnectionStatus,
  Institution,
  SetupInstructions,
  Transaction,
  Transfer,
  WebhookEventType,
} from '../api-client/index.js'

/** Scopes: the seed's four, plus the ones it leaves open for transfers and webhooks (docs/sandbox.md). */
export const SCOPES = [
  'connections:read',
  'connections:write',
  'accounts:read',
  'transactions:read',
  'transfers:read',
  'transfers:write',
  'webhooks:read',
  'webhooks:write',
] as const
export type Scope = (typeof SCOPES)[number]

export type Organization = { id: string; name: string }

export type ApiKeyRecord = {
  key: string
  orgId: string
  environment: 'test' | 'live'
  scopes: Scope[]
  /** null: never expires. */
  expiresAt: Date | null
  label: string
}

export type ConnectionRecord = {
  id: string
  orgId: string
  entityId: string
  kind: 'setup' | 'ready'
  status: ConnectionStatus
  institutionId: string | null
  institutionName: string | null
  portalUrl: string | null
  errorCode: string | null
  errorMessage: string | null
  metadata: Record<string, unknown>
  createdAt: Date
  updatedAt: Date
  setup: {
    instructions: SetupInstructions
    credentialsPresent: boolean
    nextAction: string
    actionRequiredBy: string
  }
  syncStatus: 'idle' | 'syncing'
  lastSyncedAt: Date | null
  /** Start of the most recent sync, manual or scheduled: the 45-minute cooldown runs from here. */
  lastSyncStartedAt: Date | null
  /** The submitted password was the sandbox's rejected one (`wrong-password`); the password itself is never kept. */
  passwordRejected?: boolean
  /** When the status last changed: a scheduled recovery from errored only applies to the spell it was made for. */
  statusChangedAt?: Date
}

/** An account as the API shapes it, plus what the bank keeps behind it. */
export type AccountRecord = Account & {
  orgId: string
  entityId: string
  /** Ledger balance at the start of openingDate, before any mirrored posted transaction. */
  openingBalance: string
  openingDate: string
  /** Whether the bank itself reports daily balances (source bank) or they are derived. */
  reportsBalances: boolean
  /** Whether the bank exposes currentBalance/availableBalance at all. */
  exposesBalances: boolean
}

export type TransactionRecord = Required<Pick<Transaction, 'id' | 'connectionId' | 'accountId'>> &
  Transaction & {
    orgId: string
    entityId: string
    /** Sync position of the change that created it. */
    createdSeq: number
    /** Sync position of its latest change. */
    seq: number
    /** Event id of its latest change (stable for that change). */
    eventId: string
    eventAt: Date
  }

/** A deleted transaction, kept so sync streams can report its removal. */
export type TombstoneRecord = {
  id: string
  connectionId: string
  accountId: string
  orgId: string
  createdSeq: number
  seq: number
  eventId: string
  eventAt: Date
}

export type TransferRecord = Transfer & {
  orgId: string
  /** Virtual time at which the next automatic status step is due. */
  nextStepAt: Date | null
  transactionIds: string[]
  /** Create-body options the API shape does not echo but the lifecycle needs. */
  skipPreflight: boolean
  executionDate: string | null
  /** Whether the bank approval of an amount above the threshold was given (forced through the control API). */
  approved: boolean
}

export type IdempotencyRecord = {
  orgId: string
  key: string
  /** Operation plus a canonical form of the payload: a different payload under the same key is a conflict. */
  fingerprint: string
  status: number
  body: unknown
  createdAt: Date
}

export type WebhookRecord = {
  id: string
  orgId: string
  url: string
  events: WebhookEventType[]
  secret: string
  active: boolean
  createdAt: Date
  updatedAt: Date
  metadata: Record<string, unknown> | undefined
}

/** One event to deliver to one registration. */
export type DeliveryRecord = {
  id: string
  webhookId: string
  eventId: string
  eventType: string
  body: string
  attempts: number
  nextAttemptAt: Date
  status: 'pending' | 'delivered' | 'failed' | 'dropped'
  lastStatusCode: number | null
}

export type SandboxState = {
  organizations: Map<string, Organization>
  apiKeys: Map<string, ApiKeyRecord>
  institutions: Institution[]
  connections: Map<string, ConnectionRecord>
  accounts: Map<string, AccountRecord>
  transactions: Map<string, TransactionRecord>
  tombstones: Map<string, TombstoneRecord>
  /** Last sync position handed out; every transaction change takes the next one. */
  syncSeq: number
  transfers: Map<string, TransferRecord>
  idempotency: Map<string, IdempotencyRecord>
  webhooks: Map<string, WebhookRecord>
  deliveries: DeliveryRecord[]
}

export function createEmptyState(): SandboxState {
  return {
    organizations: new Map(),
    apiKeys: new Map(),
    institutions: [],
    connections: new Map(),
    accounts: new Map(),
    transactions: new Map(),
    tombstones: new Map(),
    syncSeq: 0,
    transfers: new Map(),
    idempotency: new Map(),
    webhooks: new Map(),
    deliveries: [],
  }
}

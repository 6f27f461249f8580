import type { ColumnType, Generated, JSONColumnType } from 'kysely'
import type { AlertNotice, ConnectionHealth, NoticeSubject, TransferTracking } from '../alerts/index.js'
import type { Evidence } from '../matcher/index.js'

/** Timestamps are written as Date or ISO strings and read as Date. */
type Timestamp = ColumnType<Date, Date | string, Date | string>
/** NUMERIC: decimal strings both ways, never JS numbers. */
type Numeric = ColumnType<string, string, string>
/** DATE: ISO calendar date strings both ways (the pool's DATE parser keeps them strings). */
type CalendarDate = ColumnType<string, string, string>
/** A timestamp with a database default that updates may set. */
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>

export type ConnectionsTable = {
  id: string
  entity_id: string
  kind: string
  status: string
  institution_id: string | null
  institution_name: string | null
  portal_url: string | null
  error_code: string | null
  error_message: string | null
  sync_status: string | null
  last_synced_at: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
  /** When bankrec last saw this connection from the bank. */
  observed_at: Timestamp
}

export type ConnectionStatusHistoryTable = {
  id: Generated<string>
  connection_id: string
  previous_status: string | null
  status: string
  error_code: string | null
  error_message: string | null
  /** webhook, poll or sync. */
  source: string
  event_id: string | null
  /** When the bank says the status changed (event createdAt or the connection's updatedAt). */
  changed_at: Timestamp
  recorded_at: Generated<Timestamp>
}

export type AccountsTable = {
  id: string
  connection_id: string
  type: string
  currency: string
  name: string
  status: string
  official_name: string | null
  masked_number: string | null
  payment_identifiers: JSONColumnType<unknown[]>
  current_balance: Numeric | null
  available_balance: Numeric | null
  balance_as_of: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
}

export type DailyBalancesTable = {
  account_id: string
  date: CalendarDate
  connection_id: string
  entity_id: string
  currency: string
  ledger_balance: Numeric
  posted_transaction_delta: Numeric
  source: string
  updated_at: Timestamp
}

export type TransactionsTable = {
  id: string
  connection_id: string
  account_id: string
  posted_date: CalendarDate | null
  updated_at: Timestamp | null
  amount: Numeric | null
  currency: string | null
  description: string | null
  raw_description: string | null
  customer_reference: string | null
  bank_reference: string | null
  payment_reference: string | null
  bai_code: string | null
  category: string | null
  subcategory: string | null
  mcc: string | null
  merchant_name: string | null
  counterparty_name: string | null
  counterparty_account_masked: string | null
  status: string | null
  entry_type: string | null
  rail: string | null
  /** The sync event that last wrote this row (null when it came from the list backfill). */
  last_event_id: string | null
  /** The bootstrap backfill that last saw this row; rows a new backfill does not see are deleted. */
  backfill_run: string | null
  mirrored_at: Generated<Timestamp>
}

export type SyncStreamsTable = {
  connection_id: string
  /** Where the next sync call starts; persisted only after its page is applied (seed rule 6). */
  cursor: string | null
  /** The head saved at bootstrap, before the list backfill (seed rule 5). */
  head_cursor: string | null
  /** new → backfilling → streaming. */
  bootstrap_state: string
  last_success_at: Timestamp | null
  last_error: string | null
  updated_at: Timestamp
  /** The dialect the stream was last found to speak: JSON of the api-client's SyncDialect. */
  dialect: ColumnType<string | null, string | null | undefined, string | null>
}

/** A sync event that fit no dialect, kept as it came until a later sync settles it. */
export type SyncQuarantineTable = {
  id: Generated<string>
  connection_id: string
  event_id: string | null
  transaction_id: string | null
  problem: string
  detail: string
  raw: string
  cursor: string
  quarantined_at: Timestamp
  resolved_at: Timestamp | null
  resolution: string | null
}

export type ProcessedEventsTable = {
  event_id: string
  type: string
  /** processed, ignored (unknown and reserved types) or uninterpretable (see uninterpretable_events). */
  outcome: string
  processed_at: DefaultedTimestamp
}

/** A delivery the event worker could not read; `body` is its JSON text as queued. */
export type UninterpretableEventsTable = {
  event_id: string
  type: string | null
  problem: string
  detail: string
  connection_ids: string[]
  body: string
  received_at: Timestamp
  recorded_at: Timestamp
}

export type SyncRequestsTable = {
  connection_id: string
  /** bigint: pg returns it as a string. */
  requested: ColumnType<string, string | number, string | number>
  completed: ColumnType<string, string | number, string | number>
  /** When a process last read the connection's status after a sync; null before the first (migration 0032). */
  status_read_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** When a process last re-read its accounts and balances and proved them; null before the first (0032). */
  refreshed_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

export type ReceivedEventsTable = {
  event_id: string
  /** Defaults to now(); the PostgreSQL event queue sets it to its own clock. */
  received_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** The webhook secret is stored because the receiver needs it; it never leaves the database otherwise. */
export type WebhookRegistrationsTable = {
  id: string
  url: string
  /** Plaintext, only in rows written before migration 0015 and until the next start seals them. */
  secret: string | null
  /** The signing secret sealed with BANKREC_SECRET_KEY (secret-box.ts). */
  secret_sealed: string | null
  created_at: Generated<Timestamp>
  updated_at: Generated<Timestamp>
}

/** One notice to operations; the id is the notice's own (stable across replays). */
export type AlertNoticesTable = {
  id: string
  kind: string
  type: string
  severity: string
  route_severity: string
  incident_id: string | null
  subject: JSONColumnType<NoticeSubject>
  title: string
  /** The whole notice, as the sinks render it. */
  notice: JSONColumnType<AlertNotice>
  occurred_at: Timestamp
  created_at: Generated<Timestamp>
}

/** One notice to one sink: pending → delivered or failed. */
export type AlertDeliveriesTable = {
  notice_id: string
  sink: string
  status: Generated<string>
  attempts: Generated<number>
  last_error: string | null
  delivered_at: Timestamp | null
  updated_at: DefaultedTimestamp
}

export type DelegatedUser = { name: string | null; username: string | null; email: string | null }

/** The health record the pure rules of src/alerts/ carry between observations, one per connection. */
export type ConnectionHealthTable = {
  connection_id: string
  record: JSONColumnType<ConnectionHealth>
  delegated_user: ColumnType<DelegatedUser | null, string | null | undefined, string | null>
  updated_at: DefaultedTimestamp
}

/** A day whose mirrored posted transactions did not add up to the bank's balance rows (the balance proof). */
/** The earliest day the balance proof still owes a connection a look at (migration 0025). */
export type BalanceProofDueTable = {
  connection_id: string
  due_from: ColumnType<string, string, string>
}

export type BalanceExceptionsTable = {
  id: Generated<string>
  connection_id: string
  account_id: string
  date: CalendarDate
  currency: string | null
  mirrored_posted_sum: Numeric
  bank_delta: Numeric | null
  ledger_balance: Numeric | null
  previous_ledger_balance: Numeric | null
  /** The proof's problem codes, comma-separated. */
  problem: string
  first_seen_at: Timestamp
  last_seen_at: Timestamp
  /** Sync runs after which the day still did not add up; 2 or more makes it persistent. */
  sync_runs_seen: ColumnType<number, number | undefined, number>
  /** The proof run that last saw the day not add up; open exceptions a run did not see are resolved. */
  last_check_id: string
  resolved_at: Timestamp | null
}

/** JSONB that may be NULL; written as a JSON string. */
type NullableJson<T> = ColumnType<T | null, string | null, string | null>

/** What the bank answered when it refused a transfer write. */
export type BankRefusal = { code: string; message: string; status: number | null }

/** The outbox of events to the company's own app; the id is the event id (stable across replays). */
export type AppEventsTable = {
  id: string
  type: string
  payload: JSONColumnType<Record<string, unknown>>
  created_at: DefaultedTimestamp
  delivered_at: Timestamp | null
  attempts: Generated<number>
  last_error: string | null
  last_attempt_at: Timestamp | null
  /** Until when a worker process sending the event in place holds it (migration 0023). */
  lease_until: Timestamp | null
  /** The W3C traceparent of the run that wrote the event, continued by its send; null untraced (migration 0030). */
  traceparent: string | null
}

/** A transfer initiated through bankrec; the request and its key are stored before the bank is called. */
export type TransfersTable = {
  id: string
  idempotency_key: string
  request: JSONColumnType<Record<string, unknown>>
  request_fingerprint: string
  client_reference: string
  amount: Numeric
  currency: string
  source_account_id: string
  destination_account_id: string
  bank_transfer_id: string | null
  /** submitting (no answer yet), rejected (refused by the bank), or the bank's transfer status. */
  status: string
  failure_reason: NullableJson<{ message: string }>
  executed_amount: NullableJson<{ type: string; value: string; currency: string }>
  rejection: NullableJson<BankRefusal>
  bank_updated_at: Timestamp | null
  completed_at: Timestamp | null
  /** The tracker's TransferTracking (src/alerts/transfer-outcome.ts), null until the first observation. */
  tracking: NullableJson<TransferTracking>
  poll_attempt: ColumnType<number, number | undefined, number>
  next_poll_at: Timestamp | null
  created_at: DefaultedTimestamp
  updated_at: DefaultedTimestamp
}

/** One bank write of a transfer (create or retry), keyed by the idempotency key it was sent with. */
export type TransferAttemptsTable = {
  idempotency_key: string
  transfer_id: string
  kind: 'create' | 'retry'
  /** pending (sent or about to be, answer unknown), answered, rejected. */
  state: string
  error: NullableJson<BankRefusal>
  created_at: Timestamp
  answered_at: Timestamp | null
}

/**
 * An invoice (receivable) as the caller gave it. What matching derives from it (status and amounts) is kept
 * elsewhere. `customer_keys` holds the normalized customer name and aliases, for the customer filter.
 */
export type InvoicesTable = {
  id: string
  number: string
  /** The number's matcher token key joined by single spaces: `INV-0001001` is `INV 1001`. */
  normalized_number: string
  amount: Numeric
  currency: string
  customer_name: string | null
  customer_aliases: ColumnType<string[], string[] | undefined, string[]>
  customer_keys: ColumnType<string[], string[] | undefined, string[]>
  issue_date: CalendarDate | null
  due_date: CalendarDate | null
  entity_id: string | null
  account_id: string | null
  metadata: NullableJson<Record<string, unknown>>
  /** The customer of the master data (customers.id); not enforced: an invoice may come before its customer. */
  customer_id: ColumnType<string | null, string | null | undefined, string | null>
  /** The payment reference printed on the invoice (RF, OGM, KID, Finnish, QR reference, free form). */
  payment_reference: ColumnType<string | null, string | null | undefined, string | null>
  /** Every key a payment can name the invoice by (matcher's invoiceMatchKeys), GIN-indexed. */
  match_keys: ColumnType<string[], string[] | undefined, string[]>
  /** The version of the key rules that made normalized_number, customer_keys and match_keys; older ones are re-keyed. */
  keys_version: ColumnType<number, number | undefined, number>
  /** Early-payment discount terms: percent off when paid on or before `discount_until` (both or neither). */
  discount_percent: ColumnType<string | null, string | null | undefined, string | null>
  discount_until: ColumnType<string | null, string | null | undefined, string | null>
  /** The sum of the active credit notes netted against the invoice, kept by the credit notes' writes. */
  credited: ColumnType<string, string | undefined, string>
  /** The sum of a person's write-offs of the invoice's open rest in force (migration 0021), kept by their writes. */
  written_off: ColumnType<string, string | undefined, string>
  voided_at: Timestamp | null
  /** bigint: pg returns it as a string. Grows by one with every change. */
  version: ColumnType<string, string | number | undefined, string | number>
  created_at: DefaultedTimestamp
  updated_at: DefaultedTimestamp
}

/** A credit note netted against its invoice; DELETE voids it and keeps the row. */
export type CreditNotesTable = {
  id: string
  number: string
  amount: Numeric
  currency: string
  customer_id: string | null
  invoice_id: string
  voided_at: Timestamp | null
  version: ColumnType<string, string | number | undefined, string | number>
  created_at: DefaultedTimestamp
  updated_at: DefaultedTimestamp
  /** Migration 0028: a note above the approval threshold waits for a second person and nets nothing until then. */
  status: ColumnType<CreditNoteStatus, CreditNoteStatus | undefined, CreditNoteStatus>
  /** Who wrote it and their role; null on notes written before migration 0028. */
  made_by: ColumnType<string | null, string | null | undefined, string | null>
  made_by_role: ColumnType<string | null, string | null | undefined, string | null>
  /** Who approved or declined it, and when. */
  decided_by: ColumnType<string | null, string | null | undefined, string | null>
  decided_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  voided_by: ColumnType<string | null, string | null | undefined, string | null>
  /** When it came in force (the journal's date); null while waiting or declined. */
  in_force_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** The chart's credit-note account it books to; null on notes written before migration 0028. */
  account: ColumnType<string | null, string | null | undefined, string | null>
}

export type CreditNoteStatus = 'pending_approval' | 'active' | 'declined'

/** A remittance advice imported by a person (migration 0028): in force at once, or waiting for a second person. */
export type RemittanceImportsTable = {
  id: Generated<string>
  transaction_id: string
  write_off_invoice_id: string | null
  write_off: Numeric
  currency: string
  fee_reason: string
  matches: ColumnType<Array<{ invoiceId: string; amount: string; writeOff: string | null }>, string, string>
  fee: Numeric
  difference: Numeric
  source: string | null
  status: 'pending_approval' | 'active' | 'declined'
  made_by: string
  made_by_role: string
  created_at: Timestamp
  decided_by: string | null
  decided_at: Timestamp | null
}

/** One allocation of (part of) a transaction to an invoice; reversed, never deleted. */
export type AllocationsTable = {
  id: Generated<string>
  transaction_id: string
  invoice_id: string
  amount: Numeric
  write_off: Numeric
  /** Why the write-off was booked: bank_fee, discount, fx, rounding, credit_note, psp_fee, short_payment, …; null without one. */
  write_off_reason: ColumnType<string | null, string | null | undefined, string | null>
  /** The ledger account the write-off is booked to; null without one. */
  write_off_account: ColumnType<string | null, string | null | undefined, string | null>
  /** false: a tentative allocation of a pending inflow. */
  settled: boolean
  /** reference, suggestion or manual. */
  rule: string
  /** The transaction field the reference was read from. */
  field: string | null
  matched_reference: string | null
  /** text, rf or swift. */
  via: string | null
  confidence: number
  made_by: 'engine' | 'person'
  /** The evidence weighed (matcher's Evidence[]). */
  evidence: ColumnType<Evidence[], string | undefined, string>
  created_at: Timestamp
  reversed_at: Timestamp | null
  reversal_reason: string | null
  /** The user whose manual match produced it (made_by person); null for the engine's and older rows. */
  actor: string | null
}

/** An invoice's state as matching derived it. */
export type InvoiceStateTable = {
  invoice_id: string
  status: string
  amount_paid: Numeric
  amount_pending: Numeric
  amount_open: Numeric
  amount_overpaid: Numeric
  amount_written_off: Numeric
  /** How often the status changed: part of the stable id of the app event each change sends. */
  status_changes: ColumnType<number, number | undefined, number>
  /** The invoices.version this state was computed from; an older one means the invoice must be matched again. */
  invoice_version: ColumnType<string, string | number | undefined, string | number>
  updated_at: Timestamp
}

/** Something a person should look at; the key is the matcher's, stable while its cause lasts. */
export type MatchExceptionsTable = {
  key: string
  type: string
  transaction_id: string | null
  transfer_id: string | null
  invoice_ids: ColumnType<string[], string[] | undefined, string[]>
  amount: Numeric | null
  confidence: number | null
  settled: boolean
  /** { reasons: string[], evidence?: Evidence[] } */
  details: JSONColumnType<{ reasons: string[]; evidence?: Evidence[] }>
  times_opened: ColumnType<number, number | undefined, number>
  opened_at: Timestamp
  updated_at: Timestamp
  resolved_at: Timestamp | null
  resolution: string | null
}

/** What a mirrored transaction's reference fields name, and the token runs they hold (to find closed sets). */
export type TransactionReferencesTable = {
  transaction_id: string
  /** named, ambiguous, none, outflow or inactive. */
  outcome: string
  invoice_ids: string[]
  candidate_keys: string[]
  /** The normalized counterparty name. */
  payer_key: string | null
  /** Who may be paying (name key, account tail, learned keys), for the transactions a customer change concerns. */
  payer_keys: ColumnType<string[], string[] | undefined, string[]>
  updated_at: Timestamp
}

/** A customer of the master data: who pays invoices. */
export type CustomersTable = {
  id: string
  name: string
  aliases: ColumnType<string[], string[] | undefined, string[]>
  bank_accounts: ColumnType<string[], string[] | undefined, string[]>
  /** The name and aliases without legal form (matcher's normalizeName), for recognising payers. */
  name_keys: ColumnType<string[], string[] | undefined, string[]>
  /** The last four characters of each bank account, to find the customer of a masked account. */
  account_tails: ColumnType<string[], string[] | undefined, string[]>
  /** The version of the rules that made name_keys and account_tails (migration 0024). */
  keys_version: ColumnType<number, number | undefined, number>
  version: ColumnType<string, string | number | undefined, string | number>
  created_at: DefaultedTimestamp
  updated_at: DefaultedTimestamp
}

/** What a person's match taught: this account or name pays this customer. Removed links are kept. */
export type CustomerLinksTable = {
  id: Generated<string>
  customer_id: string
  kind: 'account' | 'name'
  /** As the bank showed it. */
  value: string
  /** As compared: the masked account letter by letter, or the name's full key. */
  key: string
  transaction_id: string | null
  invoice_id: string | null
  created_at: Timestamp
  removed_at: Timestamp | null
}

/** The outbox of matching: transactions and invoices whose matches must be computed again. */
export type PendingMatchesTable = {
  seq: Generated<string>
  kind: 'transaction' | 'invoice'
  /** One queued entity; null in a sync page's row. */
  entity_id: string | null
  /** A sync page's touched transactions, in order (kind 'transaction'); null in a one-entity row. */
  transaction_ids: string[] | null
  queued_at: DefaultedTimestamp
}

/** A person's match: an input to the matcher (amount 0: the person unmatched it, the engine leaves it alone). */
export type ManualMatchesTable = {
  id: Generated<string>
  transaction_id: string
  invoice_id: string
  amount: Numeric
  created_at: Timestamp
  removed_at: Timestamp | null
  /** Who made it and their role then; null on rows older than named users. */
  actor: string | null
  actor_role: string | null
  /** A remittance advice's match: up to this much of the invoice's rest is written off, with this reason. */
  write_off: ColumnType<string | null, string | null | undefined, string | null>
  write_off_reason: ColumnType<string | null, string | null | undefined, string | null>
}

/**
 * A person's disposition (issue 16) of the part of a payment an exception held, or of an invoice's open rest
 * (`invoice_id`, kind `write_off`; no exception or transaction, migration 0021); `active` ones are in force.
 */
export type DispositionsTable = {
  id: Generated<string>
  exception_key: string | null
  exception_type: string | null
  transaction_id: string | null
  invoice_id: ColumnType<string | null, string | null | undefined, string | null>
  /** An invoice write-off's optional note (its `reason` is the write-off reason). */
  note: ColumnType<string | null, string | null | undefined, string | null>
  kind: 'write_off' | 'clearing' | 'refund' | 'on_account' | 'ignore'
  amount: Numeric
  currency: string
  account: string
  customer_id: string | null
  reason: string
  status: 'pending_approval' | 'active' | 'declined' | 'undone'
  made_by: string
  made_by_role: string
  created_at: Timestamp
  /** Who approved or declined it (maker-checker), and when. */
  decided_by: string | null
  decided_at: Timestamp | null
  undone_by: string | null
  undone_at: Timestamp | null
  /** Whether the approval policy counts it (migration 0028): credit on account of the payer's customer is not. */
  controlled: ColumnType<boolean, boolean | undefined, boolean>
}

export type RejectedSuggestionsTable = {
  transaction_id: string
  invoice_ids: string[]
  rejected_at: Timestamp
}

/** The two legs found for a transfer bankrec initiated. */
export type TransferLegsTable = {
  transfer_id: string
  /** The client reference's token key joined by spaces. */
  reference_key: string
  outflow_transaction_id: string | null
  inflow_transaction_id: string | null
  legs_matched_at: Timestamp | null
  updated_at: Timestamp
}

/** Append-only, each entry chained to the hash of the one before. */
export type AuditLogTable = {
  seq: ColumnType<string, string | number, never>
  at: Timestamp
  actor: string
  action: string
  entity: string
  entity_id: string
  payload: JSONColumnType<Record<string, unknown>>
  prev_hash: string
  hash: string
  /** The acting person's role; hashed into the entry when set (null on the engine's and older entries). */
  actor_role: string | null
}

/** A named user of the API and dashboard. Only the token's SHA-256 is kept; removing a user revokes it. */
export type UsersTable = {
  id: Generated<string>
  name: string
  role: 'viewer' | 'clerk' | 'approver' | 'admin'
  token_hash: string
  created_at: Timestamp
  created_by: string
  revoked_at: Timestamp | null
  revoked_by: string | null
}

/** A setting a running sidecar reads at each use (issue 25: the automatic-matching mode), and who last set it. */
export type RuntimeSettingsTable = {
  key: string
  value: string
  changed_at: Timestamp
  changed_by: string
  changed_by_role: string | null
}

/** What the engine would have done by itself in shadow mode (issue 25), recorded once per decision. */
export type ShadowDecisionsTable = {
  id: Generated<string>
  transaction_id: string
  kind: 'allocate' | 'return'
  digest: string
  amount: Numeric
  currency: string
  invoice_ids: string[]
  confidence: number
  decision: JSONColumnType<ShadowDecisionDetail>
  recorded_at: Timestamp
}

/** A shadow decision's detail: the allocations (with write-offs and evidence) or the return it would have made. */
export type ShadowDecisionDetail = {
  allocations: Array<{
    invoiceId: string
    amount: string
    writeOff: string
    writeOffReason: string | null
    rule: string
    confidence: number
    settled: boolean
    evidence: Evidence[]
  }>
  return: {
    inflowTransactionId: string
    amount: string
    partial: boolean
    target: string | null
    /** What the inflow would still pay the returned invoices after the return ("0" for a whole return). */
    inflowKeeps: string
    evidence: Evidence[]
  } | null
  reasons: string[]
}

export type Database = {
  customers: CustomersTable
  customer_links: CustomerLinksTable
  allocations: AllocationsTable
  invoice_state: InvoiceStateTable
  match_exceptions: MatchExceptionsTable
  transaction_references: TransactionReferencesTable
  pending_matches: PendingMatchesTable
  manual_matches: ManualMatchesTable
  dispositions: DispositionsTable
  rejected_suggestions: RejectedSuggestionsTable
  transfer_legs: TransferLegsTable
  audit_log: AuditLogTable
  users: UsersTable
  invoices: InvoicesTable
  credit_notes: CreditNotesTable
  remittance_imports: RemittanceImportsTable
  app_events: AppEventsTable
  transfers: TransfersTable
  transfer_attempts: TransferAttemptsTable
  balance_exceptions: BalanceExceptionsTable
  balance_proof_due: BalanceProofDueTable
  alert_notices: AlertNoticesTable
  alert_deliveries: AlertDeliveriesTable
  connection_health: ConnectionHealthTable
  received_events: ReceivedEventsTable
  webhook_registrations: WebhookRegistrationsTable
  sync_requests: SyncRequestsTable
  connections: ConnectionsTable
  connection_status_history: ConnectionStatusHistoryTable
  accounts: AccountsTable
  daily_balances: DailyBalancesTable
  transactions: TransactionsTable
  sync_streams: SyncStreamsTable
  sync_quarantine: SyncQuarantineTable
  processed_events: ProcessedEventsTable
  uninterpretable_events: UninterpretableEventsTable
  runtime_settings: RuntimeSettingsTable
  shadow_decisions: ShadowDecisionsTable
}

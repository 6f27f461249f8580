import type { ColumnType, Generated, JSONColumnType } from 'kysely'

/** Timestamps are written as Date or ISO strings and read as Date. */
type Timestamp = ColumnType<Date, Date | string, Date | string>
/** NUMERIC: decimal strings both ways, never JS numbers. */
type Numeric = ColumnType<string, string, string>
/** DATE: ISO calendar date strings both ways (the pool's DATE parser keeps them strings). */
type CalendarDate = ColumnType<string, string, string>

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
}

export type ProcessedEventsTable = {
  event_id: string
  type: string
  /** processed or ignored (unknown and reserved types). */
  outcome: string
  processed_at: Generated<Timestamp>
}

export type SyncRequestsTable = {
  connection_id: string
  /** bigint: pg returns it as a string. */
  requested: ColumnType<string, string | number, string | number>
  completed: ColumnType<string, string | number, string | number>
}

export type ReceivedEventsTable = {
  event_id: string
  received_at: Generated<Timestamp>
}

/** The webhook secret is stored because the receiver needs it; it never leaves the database otherwise. */
export type WebhookRegistrationsTable = {
  id: string
  url: string
  secret: string
  created_at: Generated<Timestamp>
  updated_at: Generated<Timestamp>
}

export type Database = {
  received_events: ReceivedEventsTable
  webhook_registrations: WebhookRegistrationsTable
  sync_requests: SyncRequestsTable
  connections: ConnectionsTable
  connection_status_history: ConnectionStatusHistoryTable
  accounts: AccountsTable
  daily_balances: DailyBalancesTable
  transactions: TransactionsTable
  sync_streams: SyncStreamsTable
  processed_events: ProcessedEventsTable
}

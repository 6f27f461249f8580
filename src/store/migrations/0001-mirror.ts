import { sql, type Kysely } from 'kysely'

/** The mirror of the bank: connections with status history, accounts, daily balances, transactions, streams. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('institution_id', 'text')
    .addColumn('institution_name', 'text')
    .addColumn('portal_url', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('sync_status', 'text')
    .addColumn('last_synced_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('observed_at', 'timestamptz', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('connection_status_history')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('previous_status', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text')
    .addColumn('changed_at', 'timestamptz', (c) => c.notNull())
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('connection_status_history_by_connection')
    .on('connection_status_history')
    .columns(['connection_id', 'changed_at'])
    .execute()
  // A webhook redelivered or replayed records its status change once.
  await db.schema
    .createIndex('connection_status_history_event')
    .on('connection_status_history')
    .column('event_id')
    .unique()
    .where(sql.ref('event_id'), 'is not', null)
    .execute()

  await db.schema
    .createTable('accounts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('official_name', 'text')
    .addColumn('masked_number', 'text')
    .addColumn('payment_identifiers', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('current_balance', 'numeric')
    .addColumn('available_balance', 'numeric')
    .addColumn('balance_as_of', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('accounts_by_connection').on('accounts').column('connection_id').execute()

  await db.schema
    .createTable('daily_balances')
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('date', 'date', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('ledger_balance', 'numeric', (c) => c.notNull())
    .addColumn('posted_transaction_delta', 'numeric', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('daily_balances_pk', ['account_id', 'date'])
    .execute()
  await db.schema
    .createIndex('daily_balances_by_connection')
    .on('daily_balances')
    .column('connection_id')
    .execute()

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('posted_date', 'date')
    .addColumn('updated_at', 'timestamptz')
    .addColumn('amount', 'numeric')
    .addColumn('currency', 'text')
    .addColumn('description', 'text')
    .addColumn('raw_description', 'text')
    .addColumn('customer_reference', 'text')
    .addColumn('bank_reference', 'text')
    .addColumn('payment_reference', 'text')
    .addColumn('bai_code', 'text')
    .addColumn('category', 'text')
    .addColumn('subcategory', 'text')
    .addColumn('mcc', 'text')
    .addColumn('merchant_name', 'text')
    .addColumn('counterparty_name', 'text')
    .addColumn('counterparty_account_masked', 'text')
    .addColumn('status', 'text')
    .addColumn('entry_type', 'text')
    .addColumn('rail', 'text')
    .addColumn('last_event_id', 'text')
    .addColumn('backfill_run', 'text')
    .addColumn('mirrored_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('transactions_by_connection')
    .on('transactions')
    .columns(['connection_id', 'account_id', 'posted_date'])
    .execute()

  await db.schema
    .createTable('sync_streams')
    .addColumn('connection_id', 'text', (c) => c.primaryKey())
    .addColumn('cursor', 'text')
    .addColumn('head_cursor', 'text')
    .addColumn('bootstrap_state', 'text', (c) => c.notNull())
    .addColumn('last_success_at', 'timestamptz')
    .addColumn('last_error', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('processed_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('processed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'processed_events',
    'sync_streams',
    'transactions',
    'daily_balances',
    'accounts',
    'connection_status_history',
    'connections',
  ]) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}

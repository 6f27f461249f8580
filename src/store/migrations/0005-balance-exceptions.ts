import { sql, type Kysely } from 'kysely'

/**
 * Balance-proof exceptions (days whose mirrored posted transactions do not add up to the bank's balance rows)
 * and the keyset indexes the mirror API and export page through.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('balance_exceptions')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('date', 'date', (c) => c.notNull())
    .addColumn('currency', 'text')
    .addColumn('mirrored_posted_sum', 'numeric', (c) => c.notNull())
    .addColumn('bank_delta', 'numeric')
    .addColumn('ledger_balance', 'numeric')
    .addColumn('previous_ledger_balance', 'numeric')
    .addColumn('problem', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('sync_runs_seen', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('last_check_id', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'timestamptz')
    .execute()
  // One open exception per account and day; a day that breaks again after it was resolved opens a new one.
  await db.schema
    .createIndex('balance_exceptions_open')
    .on('balance_exceptions')
    .columns(['account_id', 'date'])
    .unique()
    .where(sql.ref('resolved_at'), 'is', null)
    .execute()
  await db.schema
    .createIndex('balance_exceptions_by_connection')
    .on('balance_exceptions')
    .columns(['connection_id', 'date'])
    .execute()
  await db.schema
    .createIndex('transactions_keyset_by_connection')
    .on('transactions')
    .columns(['connection_id', 'id'])
    .execute()
  await db.schema
    .createIndex('transactions_keyset_by_account')
    .on('transactions')
    .columns(['account_id', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transactions_keyset_by_account').ifExists().execute()
  await db.schema.dropIndex('transactions_keyset_by_connection').ifExists().execute()
  await db.schema.dropTable('balance_exceptions').ifExists().execute()
}

import { sql, type Kysely } from 'kysely'

/**
 * Transfers initiated through bankrec. The request and its idempotency key are stored before the bank is
 * called, so a retry after a crash resends the same request with the same key. Every bank write (create, and
 * each retry) is one attempt row keyed by its own idempotency key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('transfers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('request', 'jsonb', (c) => c.notNull())
    .addColumn('request_fingerprint', 'text', (c) => c.notNull())
    .addColumn('client_reference', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('source_account_id', 'text', (c) => c.notNull())
    .addColumn('destination_account_id', 'text', (c) => c.notNull())
    .addColumn('bank_transfer_id', 'text', (c) => c.unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'jsonb')
    .addColumn('executed_amount', 'jsonb')
    .addColumn('rejection', 'jsonb')
    .addColumn('bank_updated_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('tracking', 'jsonb')
    .addColumn('poll_attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_poll_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('transfers_due')
    .on('transfers')
    .column('next_poll_at')
    .where(sql.ref('next_poll_at'), 'is not', null)
    .execute()
  await db.schema.createIndex('transfers_by_reference').on('transfers').column('client_reference').execute()
  await db.schema
    .createTable('transfer_attempts')
    .addColumn('idempotency_key', 'text', (c) => c.primaryKey())
    .addColumn('transfer_id', 'text', (c) => c.notNull().references('transfers.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('error', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('answered_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('transfer_attempts_by_transfer')
    .on('transfer_attempts')
    .columns(['transfer_id', 'created_at'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('transfer_attempts').ifExists().execute()
  await db.schema.dropTable('transfers').ifExists().execute()
}

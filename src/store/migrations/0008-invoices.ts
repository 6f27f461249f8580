import { sql, type Kysely } from 'kysely'

/**
 * Invoices (receivables) as the caller gave them, keyed by the caller's id. Only the caller's fields live here:
 * what matching derives (status, paid, pending, open amounts) is kept by the matching store. DELETE voids an
 * invoice and keeps the row, so a payment that names it is still recognised. `version` grows with every change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('normalized_number', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`currency ~ '^[A-Z0-9]{3,12}$'`))
    .addColumn('customer_name', 'text')
    .addColumn('customer_aliases', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('customer_keys', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('issue_date', 'date')
    .addColumn('due_date', 'date')
    .addColumn('entity_id', 'text')
    .addColumn('account_id', 'text')
    .addColumn('metadata', 'jsonb')
    .addColumn('voided_at', 'timestamptz')
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('invoices_by_number').on('invoices').column('normalized_number').execute()
  await db.schema
    .createIndex('invoices_by_customer')
    .on('invoices')
    .using('gin')
    .column('customer_keys')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('invoices').ifExists().execute()
}

import { sql, type Kysely } from 'kysely'

/**
 * Issue 15: customers of the master data and what a person's matches taught about who pays for them; invoices'
 * customer and printed payment reference, and every key a payment may name them by (`match_keys`); the evidence
 * behind each allocation; the payer keys of a transaction (to find the payments a customer change concerns).
 * Additive only; invoices' `customer_keys` are recomputed because names now compare with transliteration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('aliases', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('bank_accounts', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('name_keys', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('account_tails', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  for (const column of ['name_keys', 'account_tails']) {
    await db.schema
      .createIndex(`customers_by_${column}`)
      .on('customers')
      .using('gin')
      .column(column)
      .execute()
  }
  await db.schema
    .createTable('customer_links')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('account', 'name')`))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'uuid')
    .addColumn('invoice_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('removed_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('customer_links_active')
    .on('customer_links')
    .columns(['customer_id', 'kind', 'key'])
    .unique()
    .where(sql.ref('removed_at'), 'is', null)
    .execute()
  await db.schema.createIndex('customer_links_by_key').on('customer_links').column('key').execute()

  await db.schema.alterTable('invoices').addColumn('customer_id', 'text').execute()
  await db.schema.alterTable('invoices').addColumn('payment_reference', 'text').execute()
  await db.schema
    .alterTable('invoices')
    .addColumn('match_keys', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .execute()
  await db.schema
    .createIndex('invoices_by_match_keys')
    .on('invoices')
    .using('gin')
    .column('match_keys')
    .execute()
  await db.schema.createIndex('invoices_by_customer_id').on('invoices').column('customer_id').execute()
  // The keys of invoices written before this migration are made by the invoices module at start-up (0021).

  await db.schema
    .alterTable('allocations')
    .addColumn('evidence', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute()
  await db.schema
    .alterTable('transaction_references')
    .addColumn('payer_keys', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .execute()
  await db.schema
    .createIndex('transaction_references_by_payer_keys')
    .on('transaction_references')
    .using('gin')
    .column('payer_keys')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transaction_references').dropColumn('payer_keys').execute()
  await db.schema.alterTable('allocations').dropColumn('evidence').execute()
  for (const column of ['match_keys', 'payment_reference', 'customer_id']) {
    await db.schema.alterTable('invoices').dropColumn(column).execute()
  }
  await db.schema.dropTable('customer_links').ifExists().execute()
  await db.schema.dropTable('customers').ifExists().execute()
}

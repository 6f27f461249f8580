import { sql, type Kysely } from 'kysely'

/**
 * Issue 16, closing the books: why and where an allocation's write-off is booked (`write_off_reason`:
 * bank_fee, discount, fx, rounding, credit_note, psp_fee, short_payment, …; `write_off_account`: the ledger
 * account), an invoice's early-payment discount terms, and credit notes netted against their invoice (their sum kept on
 * the invoice as `credited`, which matching reads).
 * Additive only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('allocations').addColumn('write_off_reason', 'text').execute()
  await db.schema.alterTable('allocations').addColumn('write_off_account', 'text').execute()

  await db.schema
    .alterTable('invoices')
    .addColumn('discount_percent', 'numeric', (c) =>
      c.check(sql`discount_percent > 0 and discount_percent < 100`),
    )
    .execute()
  await db.schema.alterTable('invoices').addColumn('discount_until', 'date').execute()
  await db.schema
    .alterTable('invoices')
    .addColumn('credited', 'numeric', (c) => c.notNull().defaultTo(0))
    .execute()

  await db.schema
    .createTable('credit_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`currency ~ '^[A-Z0-9]{3,12}$'`))
    .addColumn('customer_id', 'text')
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('voided_at', 'timestamptz')
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('credit_notes_by_invoice').on('credit_notes').column('invoice_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('credit_notes').ifExists().execute()
  await db.schema.alterTable('invoices').dropColumn('credited').execute()
  await db.schema.alterTable('invoices').dropColumn('discount_until').execute()
  await db.schema.alterTable('invoices').dropColumn('discount_percent').execute()
  await db.schema.alterTable('allocations').dropColumn('write_off_account').execute()
  await db.schema.alterTable('allocations').dropColumn('write_off_reason').execute()
}

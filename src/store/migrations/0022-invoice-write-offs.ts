import { sql, type Kysely } from 'kysely'

/**
 * Issue 16: a person writes off an invoice's open rest. It is a disposition of the invoice instead of an
 * exception's part of a payment (`invoice_id` set; no exception or transaction), with a write-off reason and an
 * optional note; the sum of those in force is kept on the invoice as `written_off`, which matching reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['exception_key', 'exception_type', 'transaction_id']) {
    await db.schema
      .alterTable('dispositions')
      .alterColumn(column, (c) => c.dropNotNull())
      .execute()
  }
  await db.schema
    .alterTable('dispositions')
    .addColumn('invoice_id', 'text')
    .addColumn('note', 'text')
    .execute()
  await db.schema
    .alterTable('dispositions')
    .addCheckConstraint(
      'dispositions_of_exception_or_invoice',
      sql`(invoice_id is null) = (exception_key is not null and transaction_id is not null)`,
    )
    .execute()
  await db.schema
    .createIndex('dispositions_by_invoice')
    .on('dispositions')
    .column('invoice_id')
    .where(sql.ref('invoice_id'), 'is not', null)
    .execute()
  await db.schema
    .alterTable('invoices')
    .addColumn('written_off', 'numeric', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invoices').dropColumn('written_off').execute()
  await db.schema.dropIndex('dispositions_by_invoice').ifExists().execute()
  await db
    .deleteFrom('dispositions' as never)
    .where('invoice_id' as never, 'is not', null)
    .execute()
  await db.schema.alterTable('dispositions').dropConstraint('dispositions_of_exception_or_invoice').execute()
  await db.schema.alterTable('dispositions').dropColumn('invoice_id').dropColumn('note').execute()
  for (const column of ['exception_key', 'exception_type', 'transaction_id']) {
    await db.schema
      .alterTable('dispositions')
      .alterColumn(column, (c) => c.setNotNull())
      .execute()
  }
}

import { sql, type Kysely } from 'kysely'

/**
 * Issue 26, segregation of duties: every document that lowers what a customer owes without a bank payment records
 * who made, approved, declined, voided or undid it. Credit notes get a status (a note above the approval threshold
 * waits: `pending_approval`, and nets nothing until approved), their maker and approver, the account of the chart
 * they book to, and the moment they came in force (the journal books them then; notes made before this migration
 * came in force when created and book to the journal's default write-off account). A
 * disposition says whether the approval policy counts it (`controlled`: credit on account of the payer's own
 * customer is not). A remittance import is a row of its own: its fee and difference written off wait like the
 * rest, with the resolved advice kept to apply on approval.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('credit_notes')
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('pending_approval', 'active', 'declined')`),
    )
    .addColumn('made_by', 'text')
    .addColumn('made_by_role', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('voided_by', 'text')
    .addColumn('in_force_at', 'timestamptz')
    .addColumn('account', 'text')
    .execute()
  await sql`update credit_notes set in_force_at = created_at`.execute(db)
  await db.schema
    .alterTable('dispositions')
    .addColumn('controlled', 'boolean', (c) => c.notNull().defaultTo(true))
    .execute()
  await sql`update dispositions set controlled = false where kind = 'on_account'`.execute(db)
  await db.schema
    .createTable('remittance_imports')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('transaction_id', 'uuid', (c) => c.notNull())
    /** The invoice the fee and difference are written off on; null when nothing is. */
    .addColumn('write_off_invoice_id', 'text')
    .addColumn('write_off', 'numeric', (c) => c.notNull().check(sql`write_off >= 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('fee_reason', 'text', (c) => c.notNull())
    /** The resolved split: [{ invoiceId, amount, writeOff }], and the advice's source and fee for the audit. */
    .addColumn('matches', 'jsonb', (c) => c.notNull())
    .addColumn('fee', 'numeric', (c) => c.notNull())
    .addColumn('difference', 'numeric', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending_approval', 'active', 'declined')`),
    )
    .addColumn('made_by', 'text', (c) => c.notNull())
    .addColumn('made_by_role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('remittance_imports_by_transaction')
    .on('remittance_imports')
    .column('transaction_id')
    .execute()
  await db.schema
    .createIndex('dispositions_by_maker')
    .on('dispositions')
    .columns(['made_by', 'created_at'])
    .execute()
  // The approval policy counts a maker's operations of the window (src/store/approvals-repo.ts).
  await db.schema
    .createIndex('credit_notes_by_maker')
    .on('credit_notes')
    .columns(['made_by', 'created_at'])
    .execute()
  await db.schema
    .createIndex('remittance_imports_by_maker')
    .on('remittance_imports')
    .columns(['made_by', 'created_at'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('dispositions_by_maker').ifExists().execute()
  await db.schema.dropIndex('credit_notes_by_maker').ifExists().execute()
  await db.schema.dropTable('remittance_imports').ifExists().execute()
  await db.schema.alterTable('dispositions').dropColumn('controlled').execute()
  await sql`update credit_notes set voided_at = coalesce(voided_at, now()) where status <> 'active'`.execute(
    db,
  )
  for (const column of [
    'status',
    'made_by',
    'made_by_role',
    'decided_by',
    'decided_at',
    'voided_by',
    'in_force_at',
    'account',
  ]) {
    await db.schema.alterTable('credit_notes').dropColumn(column).execute()
  }
}

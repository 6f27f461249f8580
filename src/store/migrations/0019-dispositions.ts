import { sql, type Kysely } from 'kysely'

/**
 * Issue 16: a person's dispositions of the part of a payment an exception holds (write off, clearing, refund,
 * on account, ignore), with who made, approved and undid each. Never deleted: an undo is a state.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dispositions')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('exception_key', 'text', (c) => c.notNull())
    .addColumn('exception_type', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind in ('write_off', 'clearing', 'refund', 'on_account', 'ignore')`),
    )
    .addColumn('amount', 'numeric', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending_approval', 'active', 'declined', 'undone')`),
    )
    .addColumn('made_by', 'text', (c) => c.notNull())
    .addColumn('made_by_role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('undone_by', 'text')
    .addColumn('undone_at', 'timestamptz')
    .execute()
  // One disposition in force or waiting per exception.
  await db.schema
    .createIndex('dispositions_live_by_exception')
    .on('dispositions')
    .column('exception_key')
    .unique()
    .where(sql.ref('status'), 'in', sql`('pending_approval', 'active')`)
    .execute()
  await db.schema
    .createIndex('dispositions_by_transaction')
    .on('dispositions')
    .column('transaction_id')
    .execute()
  await db.schema
    .createIndex('dispositions_on_account_by_customer')
    .on('dispositions')
    .column('customer_id')
    .where(sql.ref('kind'), '=', 'on_account')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dispositions').ifExists().execute()
}

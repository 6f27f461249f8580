import type { Kysely } from 'kysely'

/**
 * After a sync the balance proof looks only at the days that run could change, plus the days still owed a look:
 * an open exception's, or one the proof could not settle because the bank was ahead of the mirror. This table
 * keeps the earliest such day per connection between runs (no row: nothing owed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('balance_proof_due')
    .addColumn('connection_id', 'text', (c) => c.primaryKey())
    .addColumn('due_from', 'date', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('balance_proof_due').execute()
}

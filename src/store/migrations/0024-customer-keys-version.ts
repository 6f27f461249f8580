import type { Kysely } from 'kysely'

/**
 * Customers' lookup keys are made by the domain's rules, like invoices' (0021): each row records the version of
 * the rules that made them, and the customers module re-keys rows of an older version when the sidecar starts.
 * Rows written before this migration are version 0.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('customers')
    .addColumn('keys_version', 'smallint', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('customers').dropColumn('keys_version').execute()
}

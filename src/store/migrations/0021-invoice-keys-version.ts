import type { Kysely } from 'kysely'

/**
 * Invoices' lookup keys are made by the domain's rules, not by the store: each row records the version of the
 * rules that made its keys, and the invoices module re-keys rows of an older version when the sidecar starts.
 * Rows written before this migration are version 0, so their keys are made again once (this replaces the
 * backfill 0014 used to do with the matcher's functions).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('invoices')
    .addColumn('keys_version', 'smallint', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invoices').dropColumn('keys_version').execute()
}

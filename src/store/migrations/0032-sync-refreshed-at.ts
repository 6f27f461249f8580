import type { Kysely } from 'kysely'

/**
 * When a worker process last re-read the connection after a caught-up sync (its status, accounts and balances, and
 * the proof): every process paces its re-reads from this one time, not from its own (src/sync/refresh-pacing.ts).
 * Null until the first re-read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_requests').addColumn('refreshed_at', 'timestamptz').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_requests').dropColumn('refreshed_at').execute()
}

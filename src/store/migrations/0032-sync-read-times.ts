import type { Kysely } from 'kysely'

/**
 * When a worker process last read the connection after a sync: its status (`status_read_at`), and its accounts and
 * balances with the balance proof (`refreshed_at`). Every process paces those reads from these times, not from its
 * own (src/sync/refresh-pacing.ts). Null until the first read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sync_requests')
    .addColumn('status_read_at', 'timestamptz')
    .addColumn('refreshed_at', 'timestamptz')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sync_requests')
    .dropColumn('status_read_at')
    .dropColumn('refreshed_at')
    .execute()
}

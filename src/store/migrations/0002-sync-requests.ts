import type { Kysely } from 'kysely'

/**
 * Sync requests per connection: every trigger bumps `requested`; a worker that finishes a run marks what it
 * covered in `completed`. A trigger that lands while a run is active is therefore never lost.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sync_requests')
    .addColumn('connection_id', 'text', (c) => c.primaryKey())
    .addColumn('requested', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('completed', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sync_requests').ifExists().execute()
}

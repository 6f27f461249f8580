import type { Kysely } from 'kysely'

/**
 * GET /api/transfers pages newest first by (created_at, id): an index on both (scanned backwards), so a page reads
 * its own rows only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('transfers_by_creation').on('transfers').columns(['created_at', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transfers_by_creation').execute()
}

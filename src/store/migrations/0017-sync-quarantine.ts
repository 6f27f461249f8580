import { sql, type Kysely } from 'kysely'

/**
 * Sync events that fit no dialect, kept raw until a later sync settles them (issue 14, item 3), and the dialect
 * each stream was last found to speak (logged when it is first found or changes).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sync_quarantine')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text')
    .addColumn('transaction_id', 'uuid')
    .addColumn('problem', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    // Text, not jsonb: jsonb refuses some JSON (\u0000), and the event must be kept exactly as it came.
    .addColumn('raw', 'text', (c) => c.notNull())
    /** The cursor the page was read from: where the event stood in the stream. */
    .addColumn('cursor', 'text', (c) => c.notNull())
    .addColumn('quarantined_at', 'timestamptz', (c) => c.notNull())
    .addColumn('resolved_at', 'timestamptz')
    .addColumn('resolution', 'text')
    .execute()
  // The same event read again (a stream restarted from an older cursor) is quarantined once while open.
  await sql`create unique index sync_quarantine_open on sync_quarantine (connection_id, md5(raw))
    where resolved_at is null`.execute(db)
  await db.schema.alterTable('sync_streams').addColumn('dialect', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_streams').dropColumn('dialect').execute()
  await db.schema.dropTable('sync_quarantine').ifExists().execute()
}

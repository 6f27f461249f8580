import { sql, type Kysely } from 'kysely'

/**
 * Webhook deliveries the event worker could not read as an event it acts on (issue 14): kept with their body so a
 * person can see what the service sent. The body is JSON text, not jsonb, so any JSON the receiver accepted is
 * stored as delivered.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('uninterpretable_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text')
    .addColumn('problem', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('connection_ids', sql`text[]`, (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('uninterpretable_events').ifExists().execute()
}

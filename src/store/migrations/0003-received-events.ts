import { sql, type Kysely } from 'kysely'

/**
 * Event ids the receiver has queued, for its duplicate answer when the queue runs on PostgreSQL (on Redis the
 * receiver keeps them in Redis), and the webhook signing secrets bankrec registered itself.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('received_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('received_events_by_time').on('received_events').column('received_at').execute()
  await db.schema
    .createTable('webhook_registrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull().unique())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_registrations').ifExists().execute()
  await db.schema.dropTable('received_events').ifExists().execute()
}

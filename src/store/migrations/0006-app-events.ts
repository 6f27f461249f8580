import { sql, type Kysely } from 'kysely'

/**
 * The outbox of events to the company's own app: a row is written in the same transaction as the state change
 * it reports, and the delivery worker marks it delivered. The id is the event id, stable across replays.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('app_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('last_attempt_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('app_events_undelivered')
    .on('app_events')
    .column('created_at')
    .where(sql.ref('delivered_at'), 'is', null)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_events').ifExists().execute()
}

import { sql, type Kysely } from 'kysely'

/**
 * Alert notices to operations and their delivery to each sink, and the health record of every connection (the
 * state the pure rules in src/alerts/ carry between observations).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alert_notices')
    // The notice id is stable across replays, so a replayed effect never stores or sends a notice twice.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('route_severity', 'text', (c) => c.notNull())
    .addColumn('incident_id', 'text')
    .addColumn('subject', 'jsonb', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('notice', 'jsonb', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('alert_notices_by_time').on('alert_notices').column('created_at').execute()
  await db.schema
    .createTable('alert_deliveries')
    .addColumn('notice_id', 'text', (c) => c.notNull().references('alert_notices.id').onDelete('cascade'))
    .addColumn('sink', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('alert_deliveries_pk', ['notice_id', 'sink'])
    .execute()
  await db.schema
    .createIndex('alert_deliveries_pending')
    .on('alert_deliveries')
    .column('updated_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute()
  await db.schema
    .createTable('connection_health')
    .addColumn('connection_id', 'text', (c) => c.primaryKey())
    .addColumn('record', 'jsonb', (c) => c.notNull())
    // Who signs in to the bank portal, from the setup instructions: named in re-authentication alerts.
    .addColumn('delegated_user', 'jsonb')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('connection_health').ifExists().execute()
  await db.schema.dropTable('alert_deliveries').ifExists().execute()
  await db.schema.dropTable('alert_notices').ifExists().execute()
}

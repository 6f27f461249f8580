import { sql, type Kysely } from 'kysely'

/**
 * Issue 25: settings a running sidecar reads at each matching run (the automatic-matching mode, changed without a
 * restart, with who changed it), and what the engine would have done by itself while it was in shadow mode, so a
 * person's later decisions can be compared with it (the trust report).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('runtime_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'timestamptz', (c) => c.notNull())
    .addColumn('changed_by', 'text', (c) => c.notNull())
    .addColumn('changed_by_role', 'text')
    .execute()
  await db.schema
    .createTable('shadow_decisions')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('transaction_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('allocate', 'return')`))
    // What the decision was, as a digest: the same decision seen by a later run is recorded once.
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('invoice_ids', sql`text[]`, (c) => c.notNull())
    .addColumn('confidence', 'integer', (c) => c.notNull())
    .addColumn('decision', 'jsonb', (c) => c.notNull())
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('shadow_decisions_once', ['transaction_id', 'digest'])
    .execute()
  await db.schema
    .createIndex('shadow_decisions_by_recorded_at')
    .on('shadow_decisions')
    .column('recorded_at')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shadow_decisions').ifExists().execute()
  await db.schema.dropTable('runtime_settings').ifExists().execute()
}

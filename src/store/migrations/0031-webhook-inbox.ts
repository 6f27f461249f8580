import type { Kysely } from 'kysely'

/**
 * The receiver's inbox on the PostgreSQL queue (issue 29): under a storm of deliveries each new event is one row
 * here, written with its seen mark, and the workers forward the rows into BullMQ's job table
 * (src/queue/postgres-inbox-rows.ts). `id` keeps arrival order; a row lives from its write to its forward.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_inbox')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_inbox').ifExists().execute()
}

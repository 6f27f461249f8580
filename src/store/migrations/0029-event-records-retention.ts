import type { Kysely } from 'kysely'

/** Processed and uninterpretable event records are pruned by age each hour (issue 26): read by their times. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('processed_events_by_time')
    .on('processed_events')
    .column('processed_at')
    .execute()
  await db.schema
    .createIndex('uninterpretable_events_by_time')
    .on('uninterpretable_events')
    .column('recorded_at')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('uninterpretable_events_by_time').execute()
  await db.schema.dropIndex('processed_events_by_time').execute()
}

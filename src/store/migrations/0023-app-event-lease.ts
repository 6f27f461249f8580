import type { Kysely } from 'kysely'

/**
 * Issue 18: a worker process delivers an app event as soon as its NOTIFY arrives, without a queue hop. The
 * process that leases the row (`lease_until`) sends it; the others leave it, and the rescan skips a leased row
 * until its lease runs out (a process that died mid-send).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('app_events').addColumn('lease_until', 'timestamptz').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('app_events').dropColumn('lease_until').execute()
}

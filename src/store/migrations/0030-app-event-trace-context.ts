import type { Kysely } from 'kysely'

/**
 * The W3C trace context of the run that wrote an app event (issue 27): the process that sends it, whichever it is,
 * continues that trace. Null when tracing was off.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('app_events').addColumn('traceparent', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('app_events').dropColumn('traceparent').execute()
}

import { sql, type Kysely } from 'kysely'
import type { Database } from './database.js'

export type StoredAppEvent = {
  id: string
  type: string
  data: Record<string, unknown>
  createdAt: Date
  deliveredAt: Date | null
  attempts: number
  lastError: string | null
}

/**
 * Records an event in the outbox; false when its id is already there (a replayed effect records nothing new).
 * Run it in the caller's transaction so the event commits with the change it reports.
 */
export async function insertAppEvent(
  db: Kysely<Database>,
  event: { id: string; type: string; data: Record<string, unknown>; createdAt?: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('app_events')
    .values({
      id: event.id,
      type: event.type,
      payload: JSON.stringify(event.data),
      created_at: event.createdAt,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst()
  return inserted !== undefined
}

export async function getAppEvent(db: Kysely<Database>, id: string): Promise<StoredAppEvent | undefined> {
  const row = await db.selectFrom('app_events').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) return undefined
  return {
    id: row.id,
    type: row.type,
    data: row.payload,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    attempts: row.attempts,
    lastError: row.last_error,
  }
}

export async function markAppEventDelivered(db: Kysely<Database>, id: string, at: Date): Promise<void> {
  await db
    .updateTable('app_events')
    .set((eb) => ({
      delivered_at: at,
      last_attempt_at: at,
      attempts: eb('attempts', '+', 1),
      last_error: null,
    }))
    .where('id', '=', id)
    .execute()
}

export async function recordAppEventFailure(
  db: Kysely<Database>,
  id: string,
  error: string,
  at: Date,
): Promise<void> {
  await db
    .updateTable('app_events')
    .set((eb) => ({ last_attempt_at: at, attempts: eb('attempts', '+', 1), last_error: error }))
    .where('id', '=', id)
    .execute()
}

/** Ids of undelivered events recorded before `before` (all of them without it), oldest first. */
export async function undeliveredAppEventIds(
  db: Kysely<Database>,
  options: { before?: Date; limit: number },
): Promise<string[]> {
  let query = db.selectFrom('app_events').select('id').where('delivered_at', 'is', null)
  if (options.before) query = query.where('created_at', '<', options.before)
  const rows = await query.orderBy('created_at').limit(options.limit).execute()
  return rows.map((row) => row.id)
}

/** The NOTIFY channel of new outbox rows in the current schema (md5 keeps it within PostgreSQL's 63 bytes). */
export const APP_EVENTS_CHANNEL_PREFIX = 'bankrec_app_events_'

/**
 * Announces an outbox row to listeners. PostgreSQL delivers a NOTIFY only when its transaction commits, so a
 * listener never sees an event that was rolled back.
 */
export async function notifyAppEvent(db: Kysely<Database>, id: string): Promise<void> {
  await sql`select pg_notify(${APP_EVENTS_CHANNEL_PREFIX} || md5(current_schema()), ${id})`.execute(db)
}

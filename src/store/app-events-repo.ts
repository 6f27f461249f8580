import { sql, type Kysely, type Selectable } from 'kysely'
import type { AppEventsTable, Database } from './database.js'

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
 * Records events in the outbox in one statement; returns the ids that were new (a replayed effect records
 * nothing new). Run it in the caller's transaction so the events commit with the change they report.
 */
export async function insertAppEvents(
  db: Kysely<Database>,
  events: ReadonlyArray<{ id: string; type: string; data: Record<string, unknown>; createdAt?: Date }>,
): Promise<string[]> {
  if (events.length === 0) return []
  const rows = await db
    .insertInto('app_events')
    .values(
      events.map((event) => ({
        id: event.id,
        type: event.type,
        payload: JSON.stringify(event.data),
        created_at: event.createdAt,
      })),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .execute()
  return rows.map((row) => row.id)
}

function storedAppEventOf(row: Selectable<AppEventsTable>): StoredAppEvent {
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

export async function getAppEvent(db: Kysely<Database>, id: string): Promise<StoredAppEvent | undefined> {
  const row = await db.selectFrom('app_events').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? storedAppEventOf(row) : undefined
}

/**
 * Leases the undelivered rows among `ids` that no other process holds, until `until`; returns those this call
 * won, oldest first. Two processes told of the same rows never both win one.
 */
export async function leaseAppEvents(
  db: Kysely<Database>,
  ids: readonly string[],
  lease: { now: Date; until: Date },
): Promise<StoredAppEvent[]> {
  if (ids.length === 0) return []
  const rows = await db
    .updateTable('app_events')
    .set({ lease_until: lease.until })
    .where('id', 'in', [...ids])
    .where('delivered_at', 'is', null)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', lease.now)]))
    .returningAll()
    .execute()
  return rows.map(storedAppEventOf).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
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

/**
 * Ids of undelivered events recorded before `before` (all of them without it) that no process holds a lease on
 * at `now`, oldest first.
 */
export async function undeliveredAppEventIds(
  db: Kysely<Database>,
  options: { before?: Date; now: Date; limit: number },
): Promise<string[]> {
  let query = db
    .selectFrom('app_events')
    .select('id')
    .where('delivered_at', 'is', null)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', options.now)]))
  if (options.before) query = query.where('created_at', '<', options.before)
  const rows = await query.orderBy('created_at').limit(options.limit).execute()
  return rows.map((row) => row.id)
}

/** The NOTIFY channel of new outbox rows in the current schema (md5 keeps it within PostgreSQL's 63 bytes). */
export const APP_EVENTS_CHANNEL_PREFIX = 'bankrec_app_events_'

/**
 * Announces outbox rows to listeners, one notification per id, in one statement. PostgreSQL delivers a NOTIFY
 * only when its transaction commits, so a listener never sees an event that was rolled back.
 */
export async function notifyAppEvents(db: Kysely<Database>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return
  await sql`
    select pg_notify(${APP_EVENTS_CHANNEL_PREFIX} || md5(current_schema()), id)
    from unnest(${sql.val([...ids])}::text[]) with ordinality as t(id, n) order by n
  `.execute(db)
}

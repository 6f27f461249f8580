import { sql, type Kysely, type Selectable } from 'kysely'
import type { AppEventsTable, Database } from './database.js'
import { anyOf } from './any-of.js'

export type StoredAppEvent = {
  id: string
  type: string
  data: Record<string, unknown>
  createdAt: Date
  deliveredAt: Date | null
  attempts: number
  lastError: string | null
  /** The W3C traceparent of the run that wrote it, or null when that run was not traced. */
  traceparent: string | null
}

/** The NOTIFY channel of new outbox rows in the current schema (md5 keeps it within PostgreSQL's 63 bytes). */
export const APP_EVENTS_CHANNEL_PREFIX = 'bankrec_app_events_'

/**
 * Records events in the outbox and announces the new ones to listeners (one notification per id), in one
 * statement; returns the ids that were new (a replayed effect records and announces nothing). Run it in the
 * caller's transaction so the events commit with the change they report: PostgreSQL delivers a NOTIFY only when
 * its transaction commits, so a listener never sees an event that was rolled back.
 */
export async function recordAppEvents(
  db: Kysely<Database>,
  events: ReadonlyArray<{ id: string; type: string; data: Record<string, unknown>; createdAt?: Date }>,
  /** The writer's W3C traceparent, stored on every new row so that its send continues the trace. */
  traceparent?: string,
): Promise<string[]> {
  if (events.length === 0) return []
  const { rows } = await sql<{ id: string }>`
    with input as (
      select * from unnest(
        ${sql.val(events.map((event) => event.id))}::text[],
        ${sql.val(events.map((event) => event.type))}::text[],
        ${sql.val(events.map((event) => JSON.stringify(event.data)))}::text[],
        ${sql.val(events.map((event) => event.createdAt ?? null))}::timestamptz[]
      ) with ordinality as t(id, type, payload, created_at, n)
    ), inserted as (
      insert into app_events (id, type, payload, created_at, traceparent)
      select id, type, payload::jsonb, coalesce(created_at, now()), ${traceparent ?? null}::text from input order by n
      on conflict (id) do nothing
      returning id
    ), announced as (
      select inserted.id, min(input.n) as n from inserted join input using (id) group by inserted.id
    )
    select id, pg_notify(${APP_EVENTS_CHANNEL_PREFIX} || md5(current_schema()), id) from announced order by n
  `.execute(db)
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
    traceparent: row.traceparent,
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
    .where('id', '=', anyOf(ids))
    .where('delivered_at', 'is', null)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', lease.now)]))
    .returningAll()
    .execute()
  return rows.map(storedAppEventOf).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
}

/** Marks sent events delivered, each at its own time, in one statement (the sends a delivery group-commits). */
export async function markAppEventsDelivered(
  db: Kysely<Database>,
  marks: ReadonlyArray<{ id: string; at: Date }>,
): Promise<void> {
  if (marks.length === 0) return
  await sql`
    update app_events as e
    set delivered_at = m.at, last_attempt_at = m.at, attempts = e.attempts + 1, last_error = null
    from unnest(${sql.val(marks.map((m) => m.id))}::text[], ${sql.val(marks.map((m) => m.at))}::timestamptz[]) as m(id, at)
    where e.id = m.id
  `.execute(db)
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

import { sql, type Kysely } from 'kysely'
import type pg from 'pg'
import type { Database } from './database.js'

/** Records one more request to sync the connection; returns the new request count. */
export async function noteSyncRequest(db: Kysely<Database>, connectionId: string): Promise<bigint> {
  const row = await db
    .insertInto('sync_requests')
    .values({ connection_id: connectionId, requested: 1, completed: 0 })
    .onConflict((oc) =>
      oc.column('connection_id').doUpdateSet({ requested: sql`sync_requests.requested + 1` }),
    )
    .returning('requested')
    .executeTakeFirstOrThrow()
  return BigInt(row.requested)
}

export async function pendingSyncRequests(db: Kysely<Database>, connectionId: string): Promise<bigint> {
  const row = await db
    .selectFrom('sync_requests')
    .select('requested')
    .where('connection_id', '=', connectionId)
    .executeTakeFirst()
  return row ? BigInt(row.requested) : 0n
}

/**
 * Tries the session advisory lock `lockKey` on `client` (held until unlocked or the session ends) and reads the
 * connection's request count in the same statement: the count a run under the lock covers, without a statement of
 * its own. The statement's snapshot precedes the run, so every request it counts was noted before the run began.
 */
export async function tryLockReadingSyncRequests(
  client: pg.ClientBase,
  lockKey: string,
  connectionId: string,
): Promise<{ locked: boolean; requested: bigint }> {
  const { rows } = await client.query<{ locked: boolean; requested: string | null }>(
    `select pg_try_advisory_lock(hashtextextended($1, 0)) as locked,
       (select requested from sync_requests where connection_id = $2) as requested`,
    [lockKey, connectionId],
  )
  return { locked: rows[0]?.locked === true, requested: BigInt(rows[0]?.requested ?? 0) }
}

/**
 * A run that started after request `covered` was noted has served it and every earlier one. Answers the request
 * count now (more than `covered` when requests came during the run) and when a process last re-read the connection
 * (noteConnectionRefreshed), so pacing that re-read costs no statement of its own.
 */
export async function markSyncRequestsCompleted(
  db: Kysely<Database>,
  connectionId: string,
  covered: bigint,
): Promise<{ requested: bigint; refreshedAt: Date | null }> {
  const row = await db
    .updateTable('sync_requests')
    .set({ completed: sql`greatest(completed, ${covered.toString()}::bigint)` })
    .where('connection_id', '=', connectionId)
    .returning(['requested', 'refreshed_at'])
    .executeTakeFirst()
  return row
    ? { requested: BigInt(row.requested), refreshedAt: row.refreshed_at }
    : { requested: 0n, refreshedAt: null }
}

/** A process re-read the connection after a caught-up sync at `at`: every process paces its re-reads from it. */
export async function noteConnectionRefreshed(
  db: Kysely<Database>,
  connectionId: string,
  at: Date,
): Promise<void> {
  await db
    .insertInto('sync_requests')
    .values({ connection_id: connectionId, requested: 0, completed: 0, refreshed_at: at })
    .onConflict((oc) =>
      oc.column('connection_id').doUpdateSet({
        refreshed_at: sql`greatest(sync_requests.refreshed_at, excluded.refreshed_at)`,
      }),
    )
    .execute()
}

export async function deleteSyncRequests(db: Kysely<Database>, connectionId: string): Promise<void> {
  await db.deleteFrom('sync_requests').where('connection_id', '=', connectionId).execute()
}

export async function hasUnservedSyncRequests(db: Kysely<Database>, connectionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('sync_requests')
    .select(['requested', 'completed'])
    .where('connection_id', '=', connectionId)
    .executeTakeFirst()
  return row !== undefined && BigInt(row.requested) > BigInt(row.completed)
}

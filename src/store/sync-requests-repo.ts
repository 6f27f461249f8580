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

/** When some process last read the connection after a sync (null: never): see noteConnectionReads. */
export type ConnectionReadTimes = { statusReadAt: Date | null; refreshedAt: Date | null }

/**
 * A run that started after request `covered` was noted has served it and every earlier one. Answers the request
 * count now (more than `covered` when requests came during the run) and when a process last read the connection
 * (noteConnectionReads), so pacing those reads costs no statement of its own.
 */
export async function markSyncRequestsCompleted(
  db: Kysely<Database>,
  connectionId: string,
  covered: bigint,
): Promise<ConnectionReadTimes & { requested: bigint }> {
  const row = await db
    .updateTable('sync_requests')
    .set({ completed: sql`greatest(completed, ${covered.toString()}::bigint)` })
    .where('connection_id', '=', connectionId)
    .returning(['requested', 'status_read_at', 'refreshed_at'])
    .executeTakeFirst()
  return {
    requested: row ? BigInt(row.requested) : 0n,
    statusReadAt: row?.status_read_at ?? null,
    refreshedAt: row?.refreshed_at ?? null,
  }
}

/**
 * A process read the connection after a sync: its status, or its accounts and balances (and proved them), or both.
 * Every process paces its next reads from these times; a time never moves back.
 */
export async function noteConnectionReads(
  db: Kysely<Database>,
  connectionId: string,
  reads: { statusReadAt?: Date; refreshedAt?: Date },
): Promise<void> {
  const latest = (column: 'status_read_at' | 'refreshed_at') =>
    sql<Date | null>`greatest(${sql.ref(`sync_requests.${column}`)}, ${sql.ref(`excluded.${column}`)})`
  await db
    .insertInto('sync_requests')
    .values({
      connection_id: connectionId,
      requested: 0,
      completed: 0,
      status_read_at: reads.statusReadAt ?? null,
      refreshed_at: reads.refreshedAt ?? null,
    })
    .onConflict((oc) =>
      oc.column('connection_id').doUpdateSet({
        status_read_at: latest('status_read_at'),
        refreshed_at: latest('refreshed_at'),
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

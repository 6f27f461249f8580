import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, SyncStreamsTable } from './database.js'

export type SyncStream = Selectable<SyncStreamsTable> & {
  /** Events of the connection wait in quarantine (sync_quarantine rows not resolved). */
  quarantined: boolean
}
export type BootstrapState = 'new' | 'backfilling' | 'streaming'

export async function getSyncStream(
  db: Kysely<Database>,
  connectionId: string,
): Promise<SyncStream | undefined> {
  return db
    .selectFrom('sync_streams')
    .selectAll()
    .select(
      sql<boolean>`exists (select 1 from sync_quarantine q
        where q.connection_id = sync_streams.connection_id and q.resolved_at is null)`.as('quarantined'),
    )
    .where('connection_id', '=', connectionId)
    .executeTakeFirst()
}

/** Starts (or restarts) a stream at a freshly saved head (seed rule 5, first step). */
export async function saveStreamHead(
  db: Kysely<Database>,
  connectionId: string,
  head: string,
  now: Date,
): Promise<void> {
  await db
    .insertInto('sync_streams')
    .values({
      connection_id: connectionId,
      cursor: null,
      head_cursor: head,
      bootstrap_state: 'backfilling',
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .column('connection_id')
        .doUpdateSet({ cursor: null, head_cursor: head, bootstrap_state: 'backfilling', updated_at: now }),
    )
    .execute()
}

/**
 * Moves the cursor from `expected` to `next`, only if nobody else moved it: the page written in the same
 * transaction is rolled back when another worker got there first, so no page is ever applied twice.
 */
export async function advanceCursor(
  db: Kysely<Database>,
  connectionId: string,
  expected: string | null,
  next: string,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('sync_streams')
    .set({ cursor: next, bootstrap_state: 'streaming', last_error: null, updated_at: now })
    .where('connection_id', '=', connectionId)
    .where((eb) => (expected === null ? eb('cursor', 'is', null) : eb('cursor', '=', expected)))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export async function recordSyncError(
  db: Kysely<Database>,
  connectionId: string,
  error: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('sync_streams')
    .set({ last_error: error.slice(0, 2000), updated_at: now })
    .where('connection_id', '=', connectionId)
    .execute()
}

export async function deleteSyncStream(db: Kysely<Database>, connectionId: string): Promise<void> {
  await db.deleteFrom('sync_streams').where('connection_id', '=', connectionId).execute()
}

/**
 * Locks the stream row and tells whether it is still bootstrapping from `head`: a backfill page is written only
 * then, so a worker that lost the stream to another one (paused, lock session dropped) cannot write old rows.
 */
export async function isStillBootstrapping(
  db: Kysely<Database>,
  connectionId: string,
  head: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('sync_streams')
    .select(['cursor', 'head_cursor'])
    .where('connection_id', '=', connectionId)
    .forUpdate()
    .executeTakeFirst()
  return row !== undefined && row.cursor === null && row.head_cursor === head
}

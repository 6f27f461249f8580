import type { Kysely } from 'kysely'
import type { Database } from '../store/index.js'

export type SyncLag = {
  connectionId: string
  lastSuccessAt: Date | null
  /** Seconds since the last successful sync; null when none succeeded yet. */
  lagSeconds: number | null
  lastError: string | null
}

/** How far each connection's mirror is behind: seconds since its sync stream last succeeded. */
export async function syncLags(db: Kysely<Database>, now: Date): Promise<SyncLag[]> {
  const rows = await db
    .selectFrom('sync_streams')
    .select(['connection_id', 'last_success_at', 'last_error'])
    .orderBy('connection_id')
    .execute()
  return rows.map((row) => ({
    connectionId: row.connection_id,
    lastSuccessAt: row.last_success_at,
    lagSeconds: row.last_success_at
      ? Math.max(0, (now.getTime() - row.last_success_at.getTime()) / 1000)
      : null,
    lastError: row.last_error,
  }))
}

import type { Kysely, Selectable } from 'kysely'
import type { Database, SyncQuarantineTable } from './database.js'
import { anyOf } from './any-of.js'

export type QuarantineRow = Selectable<SyncQuarantineTable>

/** The connection's quarantined sync events that no later sync has settled yet, oldest first. */
export async function openQuarantine(db: Kysely<Database>, connectionId: string): Promise<QuarantineRow[]> {
  return db
    .selectFrom('sync_quarantine')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('resolved_at', 'is', null)
    .orderBy('id')
    .execute()
}

/** Settles quarantined events: by id, or every open one of the connection (a backfill covered them all). */
export async function resolveQuarantine(
  db: Kysely<Database>,
  target: { ids: readonly string[] } | { connectionId: string },
  resolution: string,
  now: Date,
): Promise<number> {
  if ('ids' in target && target.ids.length === 0) return 0
  const result = await db
    .updateTable('sync_quarantine')
    .set({ resolved_at: now, resolution })
    .where('resolved_at', 'is', null)
    .where((eb) =>
      'ids' in target ? eb('id', '=', anyOf(target.ids)) : eb('connection_id', '=', target.connectionId),
    )
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Open quarantined events per problem, over every connection. */
export async function openQuarantineProblems(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('sync_quarantine')
    .select(['problem', (eb) => eb.fn.countAll<string>().as('count')])
    .where('resolved_at', 'is', null)
    .groupBy('problem')
    .execute()
  return new Map(rows.map((row) => [row.problem, Number(row.count)]))
}

/** Records the dialect a stream speaks (JSON), as last found. */
export async function saveStreamDialect(
  db: Kysely<Database>,
  connectionId: string,
  dialect: string,
): Promise<void> {
  await db.updateTable('sync_streams').set({ dialect }).where('connection_id', '=', connectionId).execute()
}

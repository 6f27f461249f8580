import { sql, type Kysely, type Selectable } from 'kysely'
import type { Connection } from '../api-client/index.js'
import type { ConnectionsTable, Database } from './database.js'

export type MirroredConnection = Selectable<ConnectionsTable>

export type StatusObservation = {
  connectionId: string
  status: string
  errorCode: string | null
  errorMessage: string | null
  source: 'webhook' | 'poll' | 'sync'
  eventId: string | null
  changedAt: Date | string
}

/** Mirrors the connection as the bank shows it now and records its status when it differs from the last seen. */
export async function observeConnection(
  db: Kysely<Database>,
  connection: Connection,
  source: StatusObservation['source'],
  now: Date,
): Promise<void> {
  const row = {
    id: connection.id,
    entity_id: connection.entityId,
    kind: connection.kind,
    status: connection.status,
    institution_id: connection.institutionId,
    institution_name: connection.institutionName,
    portal_url: connection.portalUrl,
    error_code: connection.errorCode,
    error_message: connection.errorMessage,
    sync_status: connection.kind === 'ready' ? connection.syncStatus : null,
    last_synced_at: connection.kind === 'ready' ? connection.lastSyncedAt : null,
    created_at: connection.createdAt,
    updated_at: connection.updatedAt,
    observed_at: now,
  }
  // The status before this write, read in the write's statement (one round trip for each status read; issue 29).
  const written = await db
    .with('previous', (qb) => qb.selectFrom('connections').select('status').where('id', '=', connection.id))
    .insertInto('connections')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...row }))
    .returning(sql<string | null>`(select status from previous)`.as('previous_status'))
    .executeTakeFirstOrThrow()
  const previous = written.previous_status === null ? undefined : { status: written.previous_status }
  if (previous?.status !== connection.status) {
    await recordStatus(
      db,
      {
        connectionId: connection.id,
        status: connection.status,
        errorCode: connection.errorCode,
        errorMessage: connection.errorMessage,
        source,
        eventId: null,
        changedAt: connection.updatedAt,
      },
      previous?.status ?? null,
    )
  }
}

/**
 * Writes the status connection health decided into the mirrored row (a no-op for a connection not mirrored), so
 * the row and the health record never disagree. Run it in the transaction that writes the health record.
 */
export async function setMirroredStatus(
  db: Kysely<Database>,
  connectionId: string,
  current: { status: string; errorCode: string | null; errorMessage: string | null },
): Promise<void> {
  await db
    .updateTable('connections')
    .set({ status: current.status, error_code: current.errorCode, error_message: current.errorMessage })
    .where('id', '=', connectionId)
    .where('kind', '!=', 'deleted')
    .execute()
}

/** Appends a status observation to the history; an event id already recorded is ignored (redelivery). */
export async function recordStatus(
  db: Kysely<Database>,
  observation: StatusObservation,
  previousStatus: string | null,
): Promise<void> {
  await db
    .insertInto('connection_status_history')
    .values({
      connection_id: observation.connectionId,
      previous_status: previousStatus,
      status: observation.status,
      error_code: observation.errorCode,
      error_message: observation.errorMessage,
      source: observation.source,
      event_id: observation.eventId,
      changed_at: observation.changedAt,
    })
    .onConflict((oc) => oc.column('event_id').where('event_id', 'is not', null).doNothing())
    .execute()
}

/** Removes everything bankrec mirrors of a connection (deleted at the bank or through bankrec). */
export async function purgeConnection(db: Kysely<Database>, connectionId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('transactions').where('connection_id', '=', connectionId).execute()
    await trx.deleteFrom('daily_balances').where('connection_id', '=', connectionId).execute()
    await trx.deleteFrom('accounts').where('connection_id', '=', connectionId).execute()
    await trx.deleteFrom('sync_streams').where('connection_id', '=', connectionId).execute()
    await trx.deleteFrom('sync_requests').where('connection_id', '=', connectionId).execute()
    await trx
      .updateTable('connections')
      .set({ status: 'revoked', kind: 'deleted' })
      .where('id', '=', connectionId)
      .execute()
  })
}

export async function listMirroredConnections(db: Kysely<Database>): Promise<MirroredConnection[]> {
  return db.selectFrom('connections').selectAll().orderBy('created_at', 'desc').execute()
}

export async function getMirroredConnection(
  db: Kysely<Database>,
  connectionId: string,
): Promise<MirroredConnection | undefined> {
  return db.selectFrom('connections').selectAll().where('id', '=', connectionId).executeTakeFirst()
}

import type { Kysely, Transaction } from 'kysely'
import type { ConnectionHealth } from '../alerts/index.js'
import type { Database, DelegatedUser } from './database.js'
import { anyOf } from './any-of.js'

export type StoredHealth = { record: ConnectionHealth; delegatedUser: DelegatedUser | null }

/**
 * Reads a connection's health record under a row lock, lets `update` decide the next one and writes it, all in
 * one transaction: observations of one connection from several workers apply one after the other. Whatever
 * `update` writes with the transaction it gets commits with the record.
 */
export async function updateConnectionHealth<T>(
  db: Kysely<Database>,
  connectionId: string,
  initial: ConnectionHealth,
  update: (
    stored: StoredHealth,
    trx: Transaction<Database>,
  ) => Promise<{ record: ConnectionHealth; result: T }>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('connection_health')
      .values({ connection_id: connectionId, record: JSON.stringify(initial) })
      .onConflict((oc) => oc.column('connection_id').doNothing())
      .execute()
    const row = await trx
      .selectFrom('connection_health')
      .select(['record', 'delegated_user'])
      .where('connection_id', '=', connectionId)
      .forUpdate()
      .executeTakeFirstOrThrow()
    const next = await update({ record: row.record, delegatedUser: row.delegated_user }, trx)
    await trx
      .updateTable('connection_health')
      .set({ record: JSON.stringify(next.record), updated_at: new Date() })
      .where('connection_id', '=', connectionId)
      .execute()
    return next.result
  })
}

/** Keeps the delegated user from a connection's setup instructions, for the alerts that name them. */
export async function rememberDelegatedUser(
  db: Kysely<Database>,
  connectionId: string,
  initial: ConnectionHealth,
  user: DelegatedUser,
): Promise<void> {
  const value = JSON.stringify(user)
  await db
    .insertInto('connection_health')
    .values({ connection_id: connectionId, record: JSON.stringify(initial), delegated_user: value })
    .onConflict((oc) => oc.column('connection_id').doUpdateSet({ delegated_user: value }))
    .execute()
}

export async function getConnectionHealth(
  db: Kysely<Database>,
  connectionIds: string[],
): Promise<Map<string, ConnectionHealth>> {
  if (connectionIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('connection_health')
    .select(['connection_id', 'record'])
    .where('connection_id', '=', anyOf(connectionIds))
    .execute()
  return new Map(rows.map((row) => [row.connection_id, row.record]))
}

export async function listHealthConnectionIds(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('connection_health').select('connection_id').execute()
  return rows.map((row) => row.connection_id)
}

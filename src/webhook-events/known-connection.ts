import type { Kysely } from 'kysely'
import type { Connection } from '../api-client/index.js'
import { getMirroredConnection, type Database } from '../store/index.js'

export type ConnectionLookup = {
  db: Kysely<Database>
  /** The connection as the bank shows it now, or null when the bank does not know it (404, not an id). */
  lookupConnection(connectionId: string): Promise<Connection | null>
  /** A connection read from the bank: its mirrored row and its health, together. */
  recordConnection(connection: Connection): Promise<void>
}

/** What bankrec knows of a connection: the mirror's status, or the bank's read just now (then mirrored). */
export type KnownConnection = { status: string; read: Connection | null }

/**
 * The mirror's row, else the bank asked once (and its answer mirrored): nothing is synced or acted on for an id
 * that is no connection (finding 12), while a connection created since the mirror last looked is still found.
 */
export async function knownConnection(
  deps: ConnectionLookup,
  connectionId: string,
): Promise<KnownConnection | null> {
  const row = await getMirroredConnection(deps.db, connectionId)
  if (row && row.kind !== 'deleted') return { status: row.status, read: null }
  const read = await deps.lookupConnection(connectionId)
  if (!read) return null
  await deps.recordConnection(read)
  return { status: read.status, read }
}

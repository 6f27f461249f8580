import type { Kysely } from 'kysely'
import type { Connection } from '../api-client/index.js'
import type { Clock } from '../clock/index.js'
import {
  observeConnection,
  replaceConnectionAccounts,
  upsertDailyBalances,
  type Database,
} from '../store/index.js'
import type { SyncSource } from './sync-source.js'

/**
 * After a sync: the connection as the bank shows it now, its accounts, and its balance rows from the earliest
 * posted date the sync touched (balance rows are mutable projections; seed, Account balance).
 */
export async function refreshConnectionMirror(
  deps: {
    db: Kysely<Database>
    source: SyncSource
    clock: Clock
    /**
     * Writes the connection read here: its mirrored row and its health in one transaction (the sidecar's
     * connection health). @defaultValue the mirrored row alone
     */
    recordConnection?(connection: Connection): Promise<void>
  },
  connectionId: string,
  balancesFrom: string | null | 'all',
): Promise<void> {
  const connection = await deps.source.getConnection(connectionId)
  if (deps.recordConnection) await deps.recordConnection(connection)
  else await observeConnection(deps.db, connection, 'sync', deps.clock.now())
  await replaceConnectionAccounts(deps.db, connectionId, await deps.source.accounts(connectionId))
  if (balancesFrom === null) return
  for await (const page of deps.source.balancePages(
    connectionId,
    balancesFrom === 'all' ? undefined : balancesFrom,
  )) {
    await upsertDailyBalances(deps.db, page)
  }
}

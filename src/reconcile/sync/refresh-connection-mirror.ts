import type { Kysely } from 'kysely'
import type { Connection } from '../../api-client/index.js'
import type { Clock } from '../../clock/index.js'
import {
  observeConnection,
  replaceConnectionAccounts,
  upsertDailyBalances,
  type Database,
} from '../../store/index.js'
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
    /** Every connection read here is a status seen while syncing (connection health). */
    onConnectionSeen?(connection: Connection): Promise<void>
  },
  connectionId: string,
  balancesFrom: string | null | 'all',
): Promise<void> {
  const connection = await deps.source.getConnection(connectionId)
  await observeConnection(deps.db, connection, 'sync', deps.clock.now())
  await deps.onConnectionSeen?.(connection)
  await replaceConnectionAccounts(deps.db, connectionId, await deps.source.accounts(connectionId))
  if (balancesFrom === null) return
  for await (const page of deps.source.balancePages(
    connectionId,
    balancesFrom === 'all' ? undefined : balancesFrom,
  )) {
    await upsertDailyBalances(deps.db, page)
  }
}

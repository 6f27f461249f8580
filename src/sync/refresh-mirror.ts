import type { Kysely } from 'kysely'
import type { Account, BankClient, Connection } from '../api-client/index.js'
import type { Clock } from '../clock/index.js'
import {
  observeConnection,
  replaceConnectionAccounts,
  upsertDailyBalances,
  type Database,
} from '../store/index.js'

// ── after the sync: the connection, its accounts and balances ───────────────────────────────────────────────────

export type MirrorRefreshDeps = {
  db: Kysely<Database>
  client: BankClient
  clock: Clock
  /**
   * Writes the connection read here, after each run: its mirrored row and its health in one transaction (the
   * sidecar's connection health; one truth for its status, issue 14). @defaultValue the mirrored row alone
   */
  recordConnection?(connection: Connection): Promise<void>
}

/** After a sync run: the connection as the bank shows it now. */
export async function refreshConnection(deps: MirrorRefreshDeps, connectionId: string): Promise<void> {
  const connection = await deps.client.connections.get(connectionId)
  if (deps.recordConnection) await deps.recordConnection(connection)
  else await observeConnection(deps.db, connection, 'sync', deps.clock.now())
}

/**
 * After sync runs: the connection's accounts, and its balance rows from the earliest posted date the runs touched
 * (balance rows are mutable projections; seed, Account balance).
 */
export async function refreshAccountsAndBalances(
  deps: MirrorRefreshDeps,
  connectionId: string,
  balancesFrom: string | null | 'all',
): Promise<void> {
  const accounts: Account[] = []
  // 500 rows a page: the seed's maximum.
  for await (const account of deps.client.accounts.listAll({ connectionId, limit: 500 }))
    accounts.push(account)
  await replaceConnectionAccounts(deps.db, connectionId, accounts)
  if (balancesFrom === null) return
  await rereadBalances(deps, connectionId, balancesFrom === 'all' ? undefined : balancesFrom)
}

/**
 * Reads the connection's daily balance rows from `dateGte` (inclusive) on, every day without it, into the mirror,
 * a page at a time. After sync runs, and for the balance proof's re-read of a day that does not add up.
 */
export async function rereadBalances(
  deps: { db: Kysely<Database>; client: BankClient },
  connectionId: string,
  dateGte: string | undefined,
): Promise<void> {
  for await (const page of deps.client.balances.listPages({
    connectionId,
    limit: 500,
    ...(dateGte ? { dateGte } : {}),
  })) {
    await upsertDailyBalances(deps.db, page.data)
  }
}

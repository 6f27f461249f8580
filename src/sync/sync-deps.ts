import type pg from 'pg'
import type { SyncQuarantineIncident } from '../alerts/index.js'
import type { Logger } from '../observability/index.js'
import type { ConnectionSyncResult } from './sync-connection.js'
import type { MirrorRefreshDeps } from './refresh-mirror.js'
import type { RefreshPacing } from './refresh-pacing.js'

export type SyncProblem =
  | { kind: 'invalid_cursor'; connectionId: string }
  | { kind: 'access_denied'; connectionId: string; status: number }
  | { kind: 'connection_gone'; connectionId: string }
  | { kind: 'unreadable_sync_events'; connectionId: string; incidents: SyncQuarantineIncident[] }

/**
 * What syncing a connection under its lock needs: the mirror's refresh after runs (db, client, clock,
 * recordConnection) and these. The connection-sync worker's deps are these and more.
 */
export type SyncWhenFreeDeps = MirrorRefreshDeps & {
  /** The pool behind db: the per-connection lock is held on one of its clients for the whole run. */
  pool: pg.Pool
  /** Scopes the per-connection lock; the store's schema name. */
  lockNamespace: string
  logger: Logger
  /** Events per sync call. @defaultValue 500 */
  pageSize?: number
  /** Alerts and the like; failures here never fail the sync. */
  onProblem?(problem: SyncProblem): Promise<void> | void
  /**
   * As soon as a run's pages are committed, before the accounts and balances are re-read: hand the changes to
   * reconciliation here, so payments do not wait on those bank calls.
   */
  onChangesApplied?(connectionId: string, result: ConnectionSyncResult): Promise<void> | void
  /**
   * After the refresh of accounts and balances, e.g. the balance proof: once the connection is caught up, and every
   * 5 s while runs keep coming. `result` adds up the runs since the last call.
   */
  onSynced?(connectionId: string, result: ConnectionSyncResult): Promise<void> | void
  /** @defaultValue none: every caught-up run re-reads the connection at once */
  refreshPacing?: RefreshPacing
}

export type SyncJobOutcome = { connectionId: string; runs: number; skipped?: 'locked' }

/** Hands a problem to `onProblem`; a failure there is logged, never thrown. */
export async function notify(deps: SyncWhenFreeDeps, problem: SyncProblem): Promise<void> {
  try {
    await deps.onProblem?.(problem)
  } catch (error) {
    deps.logger.error({ err: error, problem }, 'sync problem handler failed')
  }
}

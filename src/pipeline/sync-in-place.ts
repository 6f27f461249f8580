import type { Logger } from '../observability/index.js'
import { syncWhenFree, type SyncWorkerDeps } from '../sync/index.js'
import { noteSyncRequest } from '../store/index.js'

/**
 * Syncs in place at once in one process at most: each holds a client of the store's pool (10) for its lock, as
 * each running connection-sync job does, so the pool keeps clients for the runs' own queries.
 */
const MAX_SYNCS_IN_PLACE = 2

/**
 * A webhook event's worker syncing the connection itself. The request is noted in sync_requests first, as every
 * request is. True when a sync that starts after the call is certain: this call ran it, or a sync of the connection
 * already running in this process takes the request along (it runs once more after it unlocks, so a request after
 * its last check is not lost; if this process dies first, its own event job is retried and syncs again). False
 * when the caller must queue the sync: the lock is another process's, the sync failed (the queue's worker retries
 * and classifies it), or MAX_SYNCS_IN_PLACE run.
 */
export function createSyncInPlace(deps: {
  logger: Logger
  /** Unset outside the worker role: nothing syncs in place there. */
  sync: () => SyncWorkerDeps | undefined
}): (connectionId: string) => Promise<boolean> {
  const running = new Map<string, { again: boolean }>()
  return async (connectionId) => {
    const sync = deps.sync()
    if (!sync) return false
    const run = running.get(connectionId)
    if (!run && running.size >= MAX_SYNCS_IN_PLACE) return false
    // Noted first, as every request is: whichever run holds the lock serves it.
    await noteSyncRequest(sync.db, connectionId)
    const joined = running.get(connectionId)
    if (joined) {
      joined.again = true
      return true
    }
    if (running.size >= MAX_SYNCS_IN_PLACE) return false
    const mine = { again: false }
    running.set(connectionId, mine)
    try {
      do {
        mine.again = false
        const outcome = await syncWhenFree(sync, connectionId)
        if (outcome.skipped) return false
      } while (mine.again)
      return true
    } catch (error) {
      deps.logger.warn(
        { err: error, connectionId },
        'sync in place failed; the connection-sync worker retries it',
      )
      return false
    } finally {
      running.delete(connectionId)
    }
  }
}

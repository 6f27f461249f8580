import { inSpan } from '../observability/index.js'
import { noteSyncRequest } from '../store/index.js'
import type { SyncWhenFreeDeps } from './sync-deps.js'
import { syncWhenFree } from './sync-lock.js'

/**
 * Syncs in place at once in one process at most: each holds a client of the store's pool (10) for its lock, as
 * each running connection-sync job does, so the pool keeps clients for the runs' own queries.
 */
const MAX_SYNCS_IN_PLACE = 2

/**
 * What became of a request to sync in place: `synced` (this call ran the sync, or a run of the connection in this
 * process takes the request along), `holder-serves` (another process holds the connection's lock), `queue` (to be
 * queued: MAX_SYNCS_IN_PLACE run, or the sync failed and the queue's worker retries and classifies it).
 */
type InPlace = 'synced' | 'holder-serves' | 'queue'

export type SyncInPlaceDeps = {
  /** The deps of the process's connection-sync worker: a sync in place runs as its jobs do. */
  sync: SyncWhenFreeDeps
  /** Hands a request this process does not sync to the connection-sync queue, whose retries keep their back-off. */
  queue(connectionId: string, reason: string): Promise<void>
}

/**
 * A webhook event's worker syncing the connection itself, in a process that runs the connection-sync worker. The
 * request is noted in sync_requests first, as every request is, so whichever run holds the lock serves it: a run in
 * this process runs once more after it unlocks, and so does another process's (`syncWhenFree` looks for requests
 * after it unlocks), so a request that found the lock taken is served without a queued job; if the holder dies
 * first, its own job (an event's, or a sync job) is retried and syncs again. Queueing it anyway cost a job per event
 * under a stream of payments, each finding the lock taken.
 */
export function createSyncInPlace(
  deps: SyncInPlaceDeps,
): (connectionId: string, reason: string) => Promise<void> {
  const { sync } = deps
  const running = new Map<string, { again: boolean }>()
  const inPlace = async (connectionId: string): Promise<InPlace> => {
    const run = running.get(connectionId)
    if (!run && running.size >= MAX_SYNCS_IN_PLACE) return 'queue'
    await noteSyncRequest(sync.db, connectionId)
    const joined = running.get(connectionId)
    if (joined) {
      joined.again = true
      return 'synced'
    }
    if (running.size >= MAX_SYNCS_IN_PLACE) return 'queue'
    const mine = { again: false }
    running.set(connectionId, mine)
    try {
      do {
        mine.again = false
        const outcome = await inSpan(
          'connection sync',
          { attributes: { 'bankrec.connection_id': connectionId } },
          () => syncWhenFree(sync, connectionId),
        )
        if (outcome.skipped) return 'holder-serves'
      } while (mine.again)
      return 'synced'
    } catch (error) {
      sync.logger.warn(
        { err: error, connectionId },
        'sync in place failed; the connection-sync worker retries it',
      )
      return 'queue'
    } finally {
      running.delete(connectionId)
    }
  }
  return async (connectionId, reason) => {
    if ((await inPlace(connectionId)) === 'queue') await deps.queue(connectionId, reason)
  }
}

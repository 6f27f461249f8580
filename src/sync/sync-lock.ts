import { hasUnservedSyncRequests, tryLockReadingSyncRequests } from '../store/index.js'
import type { OwedRead } from './refresh-pacing.js'
import { runUntilCaughtUp } from './run-until-caught-up.js'
import type { SyncJobOutcome, SyncWhenFreeDeps } from './sync-deps.js'

/**
 * The advisory lock of one connection's sync. Advisory locks are database-wide, so the name carries bankrec's
 * schema: two installations sharing a database (or two test files) never block each other.
 */
export function syncLockName(namespace: string, connectionId: string): string {
  return `${namespace}:sync:${connectionId}`
}

/**
 * Syncs the connection now unless another run holds its lock (then `skipped: 'locked'`: that run serves the
 * request, noted in sync_requests before the lock was tried). After unlocking, a run looks for requests noted
 * since its last check (their callers found the lock taken) and serves them too. A failure is handed to
 * `classify`, still under the lock, and its answer thrown. The queue's jobs and a webhook event's worker syncing
 * in place (src/sync/sync-in-place.ts) both come through here.
 */
export async function syncWhenFree(
  deps: SyncWhenFreeDeps,
  connectionId: string,
  classify: (error: unknown) => Promise<unknown> = async (error) => error,
  /** The job of a read that pacing owed (readsOwed); null, any other. */
  owed: OwedRead | null = null,
): Promise<SyncJobOutcome> {
  let runs = 0
  for (;;) {
    const outcome = await syncUnderLock(deps, connectionId, classify, owed)
    runs += outcome.runs
    if (outcome.skipped || !(await hasUnservedSyncRequests(deps.db, connectionId)))
      return { ...outcome, runs }
  }
}

async function syncUnderLock(
  deps: SyncWhenFreeDeps,
  connectionId: string,
  classify: (error: unknown) => Promise<unknown>,
  owed: OwedRead | null,
): Promise<SyncJobOutcome> {
  const lockClient = await deps.pool.connect()
  let locked = false
  // The lock's session may die under the run (PostgreSQL restarted, the connection killed): that must fail this
  // job, not crash the process with an unhandled 'error' event. The cursor compare-and-swap keeps the pages safe.
  let sessionError: Error | undefined
  const onSessionError = (error: Error) => {
    sessionError = error
    deps.logger.warn({ err: error, connectionId }, 'the sync lock session was lost')
  }
  lockClient.on('error', onSessionError)
  try {
    const tried = await tryLockReadingSyncRequests(
      lockClient,
      syncLockName(deps.lockNamespace, connectionId),
      connectionId,
    )
    locked = tried.locked
    if (!locked) return { connectionId, runs: 0, skipped: 'locked' }
    return await runUntilCaughtUp(deps, connectionId, owed, tried.requested)
  } catch (error) {
    throw await classify(error)
  } finally {
    if (locked)
      await lockClient
        .query('select pg_advisory_unlock(hashtextextended($1, 0))', [
          syncLockName(deps.lockNamespace, connectionId),
        ])
        .catch((error: Error) => (sessionError ??= error))
    lockClient.off('error', onSessionError)
    // A broken session is discarded, not handed to the next job.
    lockClient.release(sessionError)
  }
}

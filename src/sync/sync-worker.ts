import { DelayedError, UnrecoverableError, type Job, type Queue, type Worker } from 'bullmq'
import { sql } from 'kysely'
import {
  BankAuthenticationError,
  BankNotFoundError,
  BankPermissionError,
  BankRateLimitError,
  BankValidationError,
  ValidationError,
} from '../api-client/index.js'
import {
  CONNECTION_SYNC_JOB_OPTIONS,
  CONNECTION_SYNC_QUEUE,
  createBackendWorker,
  refreshJobSlot,
  syncJobId,
  type ConnectionSyncJobData,
  type QueueBackendConfig,
} from '../queue/index.js'
import { hasUnservedSyncRequests, noteSyncRequest, purgeConnection, recordSyncError } from '../store/index.js'
import { notify, type SyncJobOutcome, type SyncWhenFreeDeps } from './sync-deps.js'
import { syncLockName, syncWhenFree } from './sync-lock.js'

export type SyncWorkerDeps = SyncWhenFreeDeps & {
  queue: Queue<ConnectionSyncJobData>
  backend: QueueBackendConfig
  /** @defaultValue 2 */
  concurrency?: number
  /**
   * How long a job stays locked to a worker that stopped renewing it (crashed): another worker takes it over
   * after this. @defaultValue BullMQ's 30000
   */
  jobLockMs?: number
  /** The safety-net schedule's job (connectionId '*'): request a sync of every ready connection. */
  requestSyncOfAll?(): Promise<void>
}

/** The connectionId of the schedule's job that fans out to every ready connection. */
export const ALL_CONNECTIONS = '*'

/**
 * Syncs connections from the connection-sync queue. At most one run per connection at a time across every
 * process: a PostgreSQL advisory lock held for the run, plus the cursor compare-and-swap in the store.
 */
export function createSyncWorker(deps: SyncWorkerDeps): Worker<ConnectionSyncJobData, SyncJobOutcome> {
  const worker = createBackendWorker<ConnectionSyncJobData, SyncJobOutcome>(
    CONNECTION_SYNC_QUEUE,
    deps.backend,
    (job, token) => processSyncJob(deps, job, token),
    {
      concurrency: deps.concurrency ?? 2,
      ...(deps.jobLockMs ? { lockDuration: deps.jobLockMs, stalledInterval: deps.jobLockMs } : {}),
    },
  )
  // A trigger that landed after the run's last check found the job still active, so its add was a no-op. The job
  // is gone by now (removeOnComplete), so a new one can be queued for it.
  worker.on('completed', (job, outcome) => {
    void queueUnservedRequests(deps, job.data.connectionId, outcome).catch((error) =>
      deps.logger.error(
        { err: error, connectionId: job.data.connectionId },
        'could not queue a follow-up sync',
      ),
    )
  })
  return worker
}

async function queueUnservedRequests(
  deps: SyncWorkerDeps,
  connectionId: string,
  outcome: SyncJobOutcome,
): Promise<void> {
  if (!(await hasUnservedSyncRequests(deps.db, connectionId))) return
  // A job that found the lock taken leaves the requests to the run holding it, which looks for them again once it
  // unlocks (syncWhenFree); queueing at once would only find it still running, again and again.
  if (outcome.skipped === 'locked' && (await syncLockHeld(deps, connectionId))) return
  await deps.queue.add(
    'sync',
    { connectionId, reason: 'follow-up' },
    { ...CONNECTION_SYNC_JOB_OPTIONS, jobId: syncJobId(connectionId) },
  )
}

/** Whether a run holds the connection's lock now (a transaction-level try outside a transaction frees it at once). */
async function syncLockHeld(deps: SyncWorkerDeps, connectionId: string): Promise<boolean> {
  const { rows } = await sql<{ free: boolean }>`
    select pg_try_advisory_xact_lock(hashtextextended(${syncLockName(deps.lockNamespace, connectionId)}, 0)) as free
  `.execute(deps.db)
  return rows[0]?.free !== true
}

export async function processSyncJob(
  deps: SyncWorkerDeps,
  job: Job<ConnectionSyncJobData>,
  token: string | undefined,
): Promise<SyncJobOutcome> {
  const { connectionId } = job.data
  if (connectionId === ALL_CONNECTIONS) {
    await deps.requestSyncOfAll?.()
    return { connectionId, runs: 0 }
  }
  const owed = job.data.refresh === true ? { slot: refreshJobSlot(job.id) } : null
  // An owed read is a request like any other: when the job finds the lock taken, the holder runs once more for it,
  // and that run, past the due time, reads. Without it, a holder that owed this job just before it fell due would
  // unlock after the job gave up, and nothing would read until the next sync.
  if (owed) await noteSyncRequest(deps.db, connectionId)
  return syncWhenFree(
    deps,
    connectionId,
    (error) => classifyFailure(deps, job, token, connectionId, error),
    owed,
  )
}

async function classifyFailure(
  deps: SyncWorkerDeps,
  job: Job<ConnectionSyncJobData>,
  token: string | undefined,
  connectionId: string,
  error: unknown,
): Promise<unknown> {
  await recordSyncError(
    deps.db,
    connectionId,
    error instanceof Error ? error.message : String(error),
    deps.clock.now(),
  ).catch(() => undefined)
  if (error instanceof BankRateLimitError) {
    // The bank said when: wait exactly that long, without spending one of the job's attempts.
    const waitMs = error.retryAfterMs ?? 1_000
    await job.moveToDelayed(Date.now() + waitMs, token)
    return new DelayedError()
  }
  if (error instanceof BankAuthenticationError || error instanceof BankPermissionError) {
    await notify(deps, { kind: 'access_denied', connectionId, status: error.status ?? 0 })
    return new UnrecoverableError(`The bank refused bankrec's API key (${error.code}); fix BANK_API_KEY.`)
  }
  if (error instanceof ValidationError || error instanceof BankValidationError) {
    // Not an id the bank accepts (finding 12): no retry can make it one.
    return new UnrecoverableError(`Connection ${connectionId} cannot be synced: ${error.message}`)
  }
  if (error instanceof BankNotFoundError) {
    await purgeConnection(deps.db, connectionId)
    await notify(deps, { kind: 'connection_gone', connectionId })
    return new UnrecoverableError(
      `Connection ${connectionId} no longer exists at the bank; its mirror was removed.`,
    )
  }
  return error
}

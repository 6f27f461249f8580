import type { Queue } from 'bullmq'
import type { Kysely } from 'kysely'
import { currentTraceparent } from '../observability/index.js'
import { noteSyncRequest, type Database } from '../store/index.js'
import { CONNECTION_SYNC_JOB_OPTIONS, syncJobId, type ConnectionSyncJobData } from '../queue/index.js'

export type SyncRequester = {
  db: Kysely<Database>
  queue: Queue<ConnectionSyncJobData>
  /**
   * The request must lead to a sync within this long: a job of the connection waiting out a longer retry
   * back-off is moved to wait now (start-up, the safety-net schedule, the API and CLI: SYNC_INTERVAL_SECONDS).
   * Unset, the request joins the job whenever it runs (a sync in place that failed hands over to its back-off).
   */
  dueWithinMs?: number
}

/**
 * Asks for a sync of one connection: notes the request, then queues the connection's job unless one is already
 * waiting or running (which will see the request and run again).
 */
export async function requestConnectionSync(
  { db, queue, dueWithinMs }: SyncRequester,
  connectionId: string,
  reason: string,
): Promise<void> {
  await noteSyncRequest(db, connectionId)
  const traceparent = currentTraceparent()
  await queue.add(
    'sync',
    { connectionId, reason, ...(traceparent ? { traceparent } : {}) },
    { ...CONNECTION_SYNC_JOB_OPTIONS, jobId: syncJobId(connectionId) },
  )
  if (dueWithinMs !== undefined) await hurryBackedOffSync(queue, connectionId, dueWithinMs)
}

/**
 * The add above folds into the connection's one job (syncJobId). When that job is waiting out a retry back-off
 * longer than `dueWithinMs` (up to ~2 hours at the 12th attempt), the request would wait with it: after a restart
 * the safety net asked six times in a minute and the connection synced only when a webhook came (issue 27). A
 * back-off no longer than that (or the bank's own Retry-After within it) is left as it is.
 */
async function hurryBackedOffSync(
  queue: Queue<ConnectionSyncJobData>,
  connectionId: string,
  dueWithinMs: number,
): Promise<void> {
  const job = await queue.getJob(syncJobId(connectionId))
  if (!job || (job.delay ?? 0) <= dueWithinMs || !(await job.isDelayed())) return
  // Promoted meanwhile by another request, or already running: either way it runs now.
  await job.promote().catch(() => undefined)
}

import type { Queue } from 'bullmq'
import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import { currentTraceparent } from '../observability/index.js'
import { noteSyncRequest, type Database } from '../store/index.js'
import {
  CONNECTION_SYNC_JOB_OPTIONS,
  refreshJobId,
  syncJobId,
  type ConnectionSyncJobData,
} from '../queue/index.js'
import type { RefreshPacing } from './sync-connection.js'

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

/**
 * One worker process's pacing of the re-read after caught-up runs (RefreshPacing, `everyMs` apart): a re-read put
 * off is owed to a delayed job, due `dueAtMs`, that syncs the connection and re-reads it. Runs owing in the same
 * interval share the job (refreshJobId), and this process adds it once.
 */
export function createRefreshPacing(
  queue: Queue<ConnectionSyncJobData>,
  everyMs: number,
  clock: Clock,
): RefreshPacing {
  // What this process last owed per connection: that job waits until its due time, so later runs of the interval
  // need not add it again; once the time is past, a run re-reads itself.
  const owedUntil = new Map<string, number>()
  return {
    everyMs,
    lastAt: new Map(),
    async owe(connectionId, dueAtMs) {
      if (owedUntil.get(connectionId) === dueAtMs) return
      await queue.add(
        'sync',
        { connectionId, reason: 'refresh', refresh: true },
        {
          ...CONNECTION_SYNC_JOB_OPTIONS,
          jobId: refreshJobId(connectionId, Math.ceil(dueAtMs / everyMs)),
          delay: Math.max(0, dueAtMs - clock.now().getTime()),
        },
      )
      owedUntil.set(connectionId, dueAtMs)
    },
  }
}

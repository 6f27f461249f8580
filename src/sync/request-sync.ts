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
}

/**
 * Asks for a sync of one connection: notes the request, then queues the connection's job unless one is already
 * waiting or running (which will see the request and run again).
 */
export async function requestConnectionSync(
  { db, queue }: SyncRequester,
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

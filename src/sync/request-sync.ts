import type { Queue } from 'bullmq'
import type { Kysely } from 'kysely'
import { noteSyncRequest, type Database } from '../store/index.js'
import {
  CONNECTION_SYNC_JOB_OPTIONS,
  refreshJobId,
  syncJobId,
  type ConnectionSyncJobData,
} from '../queue/index.js'

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
  await queue.add(
    'sync',
    { connectionId, reason },
    { ...CONNECTION_SYNC_JOB_OPTIONS, jobId: syncJobId(connectionId) },
  )
}

/**
 * Owes a connection the re-read its caught-up runs put off (RefreshPacing): a delayed job, due `dueAtMs`, that
 * syncs the connection and re-reads it. Runs owing in the same interval of `everyMs` share the job.
 */
export async function oweRefresh(
  queue: Queue<ConnectionSyncJobData>,
  connectionId: string,
  timing: { nowMs: number; dueAtMs: number; everyMs: number },
): Promise<void> {
  await queue.add(
    'sync',
    { connectionId, reason: 'refresh', refresh: true },
    {
      ...CONNECTION_SYNC_JOB_OPTIONS,
      jobId: refreshJobId(connectionId, Math.ceil(timing.dueAtMs / timing.everyMs)),
      delay: Math.max(0, timing.dueAtMs - timing.nowMs),
    },
  )
}

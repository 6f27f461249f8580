import type { Queue } from 'bullmq'
import type { Kysely } from 'kysely'
import { noteSyncRequest, type Database } from '../store/index.js'
import { CONNECTION_SYNC_JOB_OPTIONS, syncJobId, type ConnectionSyncJobData } from '../queue/index.js'

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

import type { DefaultJobOptions } from 'bullmq'

/** One job per connection sync request; job id = syncJobId(connectionId). */
export const CONNECTION_SYNC_QUEUE = 'connection-sync'

export type ConnectionSyncJobData = { connectionId: string; reason: string }

/** Network and 5xx failures back off exponentially; finished jobs are removed so the id is free for the next one. */
export const CONNECTION_SYNC_JOB_OPTIONS = {
  attempts: 12,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 60 * 60 },
} as const satisfies DefaultJobOptions

/** At most one waiting sync job per connection: a storm of triggers collapses into it. */
export function syncJobId(connectionId: string): string {
  return `sync-${connectionId}`
}

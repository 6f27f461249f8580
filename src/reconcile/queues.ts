import type { DefaultJobOptions } from 'bullmq'

/** One job per connection sync request; job id = syncJobId(connectionId). */
export const CONNECTION_SYNC_QUEUE = 'connection-sync'

export type ConnectionSyncJobData = { connectionId: string; reason: string }

/**
 * Network and 5xx failures back off exponentially. Finished jobs are removed, failed ones too, so the id is free
 * for the next request: a kept failed job (out of attempts, or stalled twice by crashed workers) would turn every
 * later add of the connection's job id into a no-op, and the connection would never sync again. The failure
 * stays in sync_streams.last_error and the log.
 */
export const CONNECTION_SYNC_JOB_OPTIONS = {
  attempts: 12,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: true,
  removeOnFail: true,
} as const satisfies DefaultJobOptions

/** At most one waiting sync job per connection: a storm of triggers collapses into it. */
export function syncJobId(connectionId: string): string {
  return `sync-${connectionId}`
}

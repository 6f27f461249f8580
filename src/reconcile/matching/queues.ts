import type { DefaultJobOptions } from 'bullmq'

/** Matching runs: one waiting job at a time (job id RECONCILE_JOB_ID), plus the schedule's. */
export const RECONCILE_QUEUE = 'reconcile'

export type ReconcileJobData = { reason: string; sweep?: boolean }

/** A storm of triggers collapses into the one waiting job; the outbox holds what it must do. */
export const RECONCILE_JOB_ID = 'reconcile-run'

export const RECONCILE_JOB_OPTIONS = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: true,
  removeOnFail: true,
} as const satisfies DefaultJobOptions

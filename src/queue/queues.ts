import { createHash } from 'node:crypto'
import type { JobsOptions } from 'bullmq'

/** The queue every verified webhook delivery lands in; job name = event type, job id = event id. */
export const WEBHOOK_EVENTS_QUEUE = 'webhook-events'

/** Redis key prefix of every bankrec queue (BullMQ's default is `bull`). */
export const DEFAULT_QUEUE_PREFIX = 'bankrec'

/** The receiver remembers an event id this long: a redelivery within it is answered 200 and not queued again. */
export const DEDUPE_TTL_SECONDS = 72 * 60 * 60

/** Options of every webhook event job: the workers retry with back-off; finished jobs outlive the dedupe window. */
export const WEBHOOK_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: DEDUPE_TTL_SECONDS },
  removeOnFail: { age: 30 * 24 * 60 * 60 },
} as const satisfies JobsOptions

/** The key that marks an event id as seen; written in the same MULTI as its job. */
export function dedupeKey(prefix: string, eventId: string): string {
  return `${prefix}:${WEBHOOK_EVENTS_QUEUE}:seen:${eventId}`
}

/**
 * The BullMQ job id of an event: the event id itself, unless BullMQ refuses it (integers and ids with `:` are
 * reserved for its own ids), then a digest of it, so every event id still maps to exactly one job.
 */
export function jobIdFor(eventId: string): string {
  if (!eventId.includes(':') && String(Number.parseInt(eventId, 10)) !== eventId) return eventId
  return `sha256-${createHash('sha256').update(eventId).digest('hex')}`
}

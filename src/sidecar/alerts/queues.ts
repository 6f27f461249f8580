import { createHash } from 'node:crypto'
import type { DefaultJobOptions } from 'bullmq'
import type { DeliveryRef } from '../../store/index.js'

/** One job per notice and sink. */
export const ALERT_DELIVERIES_QUEUE = 'alert-deliveries'

export type AlertDeliveryJobData = DeliveryRef

/**
 * A sink that does not answer is retried with exponential back-off for about a day (or after its Retry-After);
 * finished jobs stay a week so a re-queue of the same delivery is a no-op.
 */
export const ALERT_DELIVERY_JOB_OPTIONS = {
  attempts: 15,
  backoff: { type: 'alert', delay: 2_000 },
  removeOnComplete: { age: 7 * 24 * 60 * 60 },
  removeOnFail: { age: 30 * 24 * 60 * 60 },
} as const satisfies DefaultJobOptions

/**
 * `${noticeId}:${sink}` as a BullMQ job id. Notice ids hold `:` (and times), which BullMQ reserves for its own
 * ids, so the job id is a digest of that pair: one job per delivery, whatever the notice id looks like.
 */
export function deliveryJobId(ref: DeliveryRef): string {
  return `alert-${createHash('sha256').update(`${ref.noticeId}:${ref.sink}`).digest('hex').slice(0, 40)}`
}

/** The periodic job that runs the time-driven health rules over every connection. */
export const CONNECTION_HEALTH_QUEUE = 'connection-health'
export const HEALTH_TICK_SCHEDULER = 'connection-health-tick'

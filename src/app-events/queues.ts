import type { DefaultJobOptions } from 'bullmq'
import { jobIdFor } from '../queue/index.js'

/** One job per outbox row; job id = the event id (or its digest when BullMQ refuses the id). */
export const APP_EVENTS_QUEUE = 'app-events'

export type AppEventJobData = { eventId: string }

/**
 * An app that does not take an event is retried with exponential back-off (about 34 minutes over 10 attempts
 * from 2 s). A job that used them all is removed: the outbox row stays undelivered and the rescan queues it
 * again, so an app that is down for a day still gets every event.
 */
export const APP_EVENT_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 3600 },
  removeOnFail: true,
} as const satisfies DefaultJobOptions

export function appEventJobId(eventId: string): string {
  return jobIdFor(eventId)
}

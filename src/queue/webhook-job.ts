import { Job, type IRedisTransaction, type Queue } from 'bullmq'
import { jobIdFor } from './catalogue.js'
import type { WebhookJob, WebhookJobData } from './webhook-event-queue.js'

/**
 * Puts one event's BullMQ add on a MULTI: job name = event type, job id = event id, and BullMQ's deduplication id,
 * so adding it again within the window (a redelivery, an entry forwarded twice) adds nothing. The add's reply is
 * in the MULTI's exec() replies, at the position it was queued in; a negative number means it did not land.
 */
export function queueWebhookJobAdd(
  queue: Queue<WebhookJobData>,
  multi: IRedisTransaction,
  job: WebhookJob,
  dedupeTtlSeconds: number,
): void {
  const data: WebhookJobData = { event: job.event, receivedAt: job.receivedAt }
  if (job.ignored) data.ignored = job.ignored
  const bullJob = new Job(
    queue,
    job.type,
    data,
    // A Job built by hand gets none of the queue's defaults (attempts would be 1): merge them as queue.add does.
    { ...queue.defaultJobOptions, deduplication: { id: job.eventId, ttl: dedupeTtlSeconds * 1000 } },
    jobIdFor(job.eventId),
  )
  void bullJob.addJob(multi)
}

/** Whether a reply of exec() for a queued add says the job landed. */
export function jobAddLanded(reply: [Error | null, unknown] | undefined): boolean {
  if (!reply) return false
  const [error, result] = reply
  return !error && !(typeof result === 'number' && result < 0)
}

/** Why a delivered event needs no processing: reserved by the seed for a future producer, or not known at all. */
export type IgnoredReason = 'reserved_type' | 'unknown_type'

/** One verified delivery, as it is queued. */
export type WebhookJob = {
  eventId: string
  type: string
  /** The parsed event envelope, exactly as delivered. */
  event: Record<string, unknown>
  /** ISO time the receiver accepted it. */
  receivedAt: string
  /** Set when the event is acknowledged and recorded but needs no processing. */
  ignored?: IgnoredReason
}

/** `queued`: written now; `duplicate`: already queued within the dedupe window; `failed`: not written. */
export type EnqueueResult = 'queued' | 'duplicate' | 'failed'

/**
 * Where the receiver writes events. The Redis implementation is BullMQ on ioredis; the store issue adds one on
 * BullMQ's PostgreSQL backend for runs without REDIS_URL.
 */
export type WebhookEventQueue = {
  /**
   * Writes the jobs durably in one atomic step and answers, per job and in order, what happened. Rejects
   * when the batch could not be written at all.
   */
  addBatch(jobs: readonly WebhookJob[]): Promise<EnqueueResult[]>
  /** Resolves when the queue is reachable, rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}

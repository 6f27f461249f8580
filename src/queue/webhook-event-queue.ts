/** Why a delivered event needs no processing: reserved by the seed for a future producer, or not known at all. */
export type IgnoredReason = 'reserved_type' | 'unknown_type'

/** One verified delivery, as it is queued. */
export type WebhookJob = {
  eventId: string
  type: string
  /** The parsed event envelope, exactly as delivered. */
  event: Record<string, unknown>
  /** The envelope's JSON text as delivered, when at hand: queues that store text keep it instead of re-serializing. */
  eventJson?: string
  /** ISO time the receiver accepted it. */
  receivedAt: string
  /** Set when the event is acknowledged and recorded but needs no processing. */
  ignored?: IgnoredReason
}

/** The job payload; the event envelope stays as delivered so workers parse it with the api-client schemas. */
export type WebhookJobData = Pick<WebhookJob, 'event' | 'receivedAt' | 'ignored'>

/** `queued`: written now; `duplicate`: already queued within the dedupe window; `failed`: not written. */
export type EnqueueResult = 'queued' | 'duplicate' | 'failed'

/**
 * Where the receiver writes events: on Redis an inbox that forwarders move into BullMQ (webhook-inbox.ts), on
 * PostgreSQL BullMQ's PostgreSQL backend directly.
 */
export type WebhookEventQueue = {
  /**
   * Writes the jobs durably in one atomic step and answers, per job and in order, what happened. Rejects
   * when the batch could not be written at all.
   */
  addBatch(jobs: readonly WebhookJob[]): Promise<EnqueueResult[]>
  /** Events accepted but not yet in the BullMQ queue (the Redis inbox); absent where writes land there directly. */
  backlog?(): Promise<number>
  /** Accepted events set aside in the Redis dead-letter list, never processed; absent where there is none. */
  deadLetters?(): Promise<number>
  /** Resolves when the queue is reachable, rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}

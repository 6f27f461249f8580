import { createHash } from 'node:crypto'
import { Job, type DefaultJobOptions, type IRedisTransaction, type JobsOptions, type Queue } from 'bullmq'
import type { IgnoredReason } from '../webhook-envelope/index.js'

/**
 * Every queue of bankrec in one place: its name, its job options, its job ids and the data its jobs carry (plain
 * types: this file imports no domain code, only the envelope's IgnoredReason type), and for webhook events how a
 * job is built. Which stage adds to a queue and which worker takes from it is in src/pipeline/stages.ts.
 */

/** Redis key prefix of every bankrec queue (BullMQ's default is `bull`). */
export const DEFAULT_QUEUE_PREFIX = 'bankrec'

/**
 * The BullMQ job id of an outside id: the id itself, unless BullMQ refuses it (integers and ids with `:` are
 * reserved for its own ids), then a digest of it, so every id still maps to exactly one job.
 */
export function jobIdFor(eventId: string): string {
  if (!eventId.includes(':') && String(Number.parseInt(eventId, 10)) !== eventId) return eventId
  return `sha256-${createHash('sha256').update(eventId).digest('hex')}`
}

// ── webhook-events: every verified webhook delivery ─────────────────────────────────────────────────────────────

/** The queue every verified webhook delivery lands in; job name = event type, job id = jobIdFor(event id). */
export const WEBHOOK_EVENTS_QUEUE = 'webhook-events'

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

/** Why a delivered event needs no processing: the envelope's reading decides (src/webhook-envelope). */
export type { IgnoredReason }

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
  /** The W3C traceparent of the delivery's server span, when traced: the worker's span continues its trace. */
  traceparent?: string
}

/**
 * The job payload; the event envelope stays as delivered so workers parse it with the api-client schemas.
 * `eventId` is the id the receiver answered with, so the worker's claim and log lines name that one (issue 28).
 * It is optional only for jobs queued before it was carried, still in a queue after an upgrade.
 */
export type WebhookJobData = Pick<WebhookJob, 'event' | 'receivedAt' | 'ignored' | 'traceparent'> & {
  eventId?: string
}

/** A delivery's job payload, the same on both queue backends. */
export function webhookJobData(job: WebhookJob): WebhookJobData {
  const data: WebhookJobData = { eventId: job.eventId, event: job.event, receivedAt: job.receivedAt }
  if (job.ignored) data.ignored = job.ignored
  if (job.traceparent) data.traceparent = job.traceparent
  return data
}

/** `queued`: written now; `duplicate`: already queued within the dedupe window; `failed`: not written. */
export type EnqueueResult = 'queued' | 'duplicate' | 'failed'

/**
 * Where the receiver writes events: on Redis the queue or, in a storm, an inbox (redis-inbox.ts) that forwarders
 * move into it (inbox-forwarder.ts); on PostgreSQL BullMQ's PostgreSQL backend or, in a storm, an inbox table
 * (postgres-inbox-rows.ts) that forwarders move into it (postgres-inbox-forwarder.ts).
 */
export type WebhookEventQueue = {
  /**
   * Writes the jobs durably in one atomic step and answers, per job and in order, what happened. Rejects
   * when the batch could not be written at all.
   */
  addBatch(jobs: readonly WebhookJob[]): Promise<EnqueueResult[]>
  /** Events accepted but not yet in the BullMQ queue (the inbox); absent where writes land there directly. */
  backlog?(): Promise<number>
  /** Accepted events set aside in the Redis dead-letter list, never processed; absent where there is none. */
  deadLetters?(): Promise<number>
  /** Resolves when the queue is reachable, rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}

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
  const bullJob = new Job(
    queue,
    job.type,
    webhookJobData(job),
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

// ── connection-sync: a sync that could not run where it was asked for ───────────────────────────────────────────

/** One job per connection sync request; job id = syncJobId(connectionId). */
export const CONNECTION_SYNC_QUEUE = 'connection-sync'

/**
 * connectionId '*' is the safety-net schedule's job: a sync of every ready connection. `refresh`: a re-read owed
 * after caught-up runs (RefreshPacing, exported by src/sync/), run whatever its process re-read lately.
 */
export type ConnectionSyncJobData = {
  connectionId: string
  reason: string
  refresh?: boolean
  /** The requester's W3C traceparent, when traced. */
  traceparent?: string
}

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

/**
 * The job of a re-read owed to a connection: one per connection and pacing interval (`slot`, the interval it
 * falls due in), so the runs of one interval owe one job, and one already running never swallows the next.
 */
export function refreshJobId(connectionId: string, slot: number): string {
  return `${REFRESH_JOB_PREFIX}${connectionId}-${slot}`
}

/** The interval an owed re-read's job falls due in (refreshJobId); null for any other job. */
export function refreshJobSlot(jobId: string | undefined): number | null {
  if (!isRefreshJobId(jobId)) return null
  const slot = Number(jobId!.slice(jobId!.lastIndexOf('-') + 1))
  return Number.isSafeInteger(slot) ? slot : null
}

/** Whether a connection-sync job is an owed re-read (refreshJobId). */
export function isRefreshJobId(jobId: string | undefined): boolean {
  return jobId?.startsWith(REFRESH_JOB_PREFIX) === true
}

const REFRESH_JOB_PREFIX = 'refresh-'

/** The scheduler of the safety-net sync of every ready connection (every SYNC_INTERVAL_SECONDS). */
export const SAFETY_NET_SYNC_SCHEDULER = 'safety-net-sync'

// ── matching: a matching run that could not run where it was asked for ──────────────────────────────────────────

/**
 * Matching runs: one waiting job at a time (job id MATCHING_JOB_ID), plus the schedule's. In code the concept is
 * "matching"; its stored names (`reconcile`, `reconcile-run`, `reconcile-schedule`) are the earlier word, mapped
 * here and nowhere else. They stay for compatibility: jobs and the schedule an earlier version left in Redis or
 * PostgreSQL are still taken after an upgrade, so never rename them.
 */
/**
 * The word in the matching run's advisory lock (`matchLockName`): the earlier name too, kept so a rolling
 * upgrade's old and new processes still exclude each other.
 */
export const MATCHING_LOCK_WORD = 'reconcile'

export const MATCHING_QUEUE = 'reconcile'

export type MatchingJobData = { reason: string; sweep?: boolean }

/** A storm of triggers collapses into the one waiting job; the outbox holds what it must do. */
export const MATCHING_JOB_ID = 'reconcile-run'

/** The scheduler of the matching sweep (unseen payments and invoices, every MATCHING_SCHEDULE_SECONDS). */
export const MATCHING_SCHEDULER = 'reconcile-schedule'
export const MATCHING_SCHEDULE_SECONDS = 30

export const MATCHING_JOB_OPTIONS = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: true,
  removeOnFail: true,
} as const satisfies DefaultJobOptions

// ── app-events: delivery of the app-event outbox ────────────────────────────────────────────────────────────────

/** One job per outbox row; job id = appEventJobId(event id). */
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

// ── alert-deliveries: one notice to one sink ────────────────────────────────────────────────────────────────────

/** One job per notice and sink. */
export const ALERT_DELIVERIES_QUEUE = 'alert-deliveries'

/** A notice's delivery to one sink (the store's DeliveryRef). */
export type AlertDeliveryJobData = { noticeId: string; sink: string }

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
export function deliveryJobId(ref: AlertDeliveryJobData): string {
  return `alert-${createHash('sha256').update(`${ref.noticeId}:${ref.sink}`).digest('hex').slice(0, 40)}`
}

// ── connection-health: the time-driven health rules ─────────────────────────────────────────────────────────────

/** The periodic job that runs the time-driven health rules over every connection. */
export const CONNECTION_HEALTH_QUEUE = 'connection-health'
export const HEALTH_TICK_SCHEDULER = 'connection-health-tick'

export type HealthTickJobData = { reason: string }

import { UnrecoverableError, type Job, type Worker } from 'bullmq'
import { sql, type Kysely } from 'kysely'
import pRetry from 'p-retry'
import { renderJsonAlert, renderSlackMessage, type AlertConfig, type AlertNotice } from '../alerts/index.js'
import type { Clock } from '../clock/index.js'
import { AlertDeliveryError, logAlert, sendJsonAlert, sendSlackAlert, type SinkDeps } from './alert-sinks.js'
import type { Logger } from '../observability/index.js'
import { createBackendWorker, type QueueBackendConfig } from '../queue/index.js'
import { findDelivery, recordDeliveryAttempt, type Database } from '../store/index.js'
import { ALERT_DELIVERIES_QUEUE, deliveryJobId, type AlertDeliveryJobData } from '../queue/index.js'

export type AlertDeliveryWorkerDeps = {
  db: Kysely<Database>
  backend: QueueBackendConfig
  config: AlertConfig
  logger: Logger
  clock: Clock
  /** @defaultValue 4 */
  concurrency?: number
  sink?: SinkDeps
  /** Back-off of the first retry; doubles per attempt up to an hour. @defaultValue 2000 */
  retryDelayMs?: number
}

export type DeliveryOutcome = 'delivered' | 'skipped'

const MAX_RETRY_DELAY_MS = 60 * 60 * 1000

async function send(deps: AlertDeliveryWorkerDeps, sink: string, notice: AlertNotice): Promise<void> {
  if (sink === 'log') {
    logAlert(deps.logger, notice)
    return
  }
  if (sink === 'slack' && deps.config.slack) {
    await sendSlackAlert(deps.config.slack.webhookUrl, renderSlackMessage(notice), deps.sink)
    return
  }
  if (sink === 'webhook' && deps.config.webhook) {
    const { url, secret } = deps.config.webhook
    await sendJsonAlert(url, renderJsonAlert(notice), secret, deps.sink)
    return
  }
  throw new UnrecoverableError(`the ${sink} alert sink is no longer configured`)
}

/** A few quick tries on a fresh pool session: enough for a terminated session or a failover's first seconds. */
const RECORD_RETRIES = { retries: 4, minTimeout: 50, maxTimeout: 1_000 }

/** Another worker is sending the same delivery now; the job retries and then finds it delivered. */
class DeliveryInProgressError extends Error {
  override readonly name = 'DeliveryInProgressError'
}

/**
 * Runs the send of one delivery under a transaction-level advisory lock of its own (the transaction holds no other
 * work: reads and the record go through the pool). A worker whose job lock lapsed while it was still sending (a
 * stall, Redis away) keeps the lock, so the worker that took the job over waits for its record instead of sending
 * a second time. The lock ends with the worker's session: a worker that dies after the sink answered and before
 * the record leaves the delivery pending, and the retry sends it again (at most once per such death).
 */
async function exclusively<T>(
  deps: AlertDeliveryWorkerDeps,
  job: Job<AlertDeliveryJobData>,
  fn: () => Promise<T>,
): Promise<T> {
  return deps.db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(hashtextextended(${`bankrec:${deliveryJobId(job.data)}`}, 0)) as locked
    `.execute(trx)
    if (rows[0]?.locked !== true) throw new DeliveryInProgressError('another worker is sending this delivery')
    return fn()
  })
}

async function deliver(
  deps: AlertDeliveryWorkerDeps,
  job: Job<AlertDeliveryJobData, DeliveryOutcome>,
): Promise<DeliveryOutcome> {
  return exclusively(deps, job, () => deliverOnce(deps, job))
}

async function deliverOnce(
  deps: AlertDeliveryWorkerDeps,
  job: Job<AlertDeliveryJobData, DeliveryOutcome>,
): Promise<DeliveryOutcome> {
  const ref = job.data
  const stored = await findDelivery(deps.db, ref)
  // Delivered already (a re-queued job) or marked failed: nothing to do.
  if (!stored || stored.status !== 'pending') return 'skipped'
  try {
    await send(deps, ref.sink, stored.notice)
  } catch (error) {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1)
    const retryable =
      error instanceof AlertDeliveryError ? error.retryable : !(error instanceof UnrecoverableError)
    const message = error instanceof Error ? error.message : String(error)
    await recordDeliveryAttempt(deps.db, ref, {
      status: retryable && !lastAttempt ? 'pending' : 'failed',
      error: message,
      at: deps.clock.now(),
    })
    if (!retryable && !(error instanceof UnrecoverableError)) throw new UnrecoverableError(message)
    throw error
  }
  // The sink has it: a lost database session must not turn into a retry that sends it again.
  const at = deps.clock.now()
  await pRetry(() => recordDeliveryAttempt(deps.db, ref, { status: 'delivered', at }), RECORD_RETRIES)
  return 'delivered'
}

/** Sends each queued notice to its sink, retrying with back-off (or the sink's Retry-After) while it can help. */
export function createAlertDeliveryWorker(
  deps: AlertDeliveryWorkerDeps,
): Worker<AlertDeliveryJobData, DeliveryOutcome> {
  const firstDelay = deps.retryDelayMs ?? 2_000
  return createBackendWorker<AlertDeliveryJobData, DeliveryOutcome>(
    ALERT_DELIVERIES_QUEUE,
    deps.backend,
    (job) => deliver(deps, job),
    {
      concurrency: deps.concurrency ?? 4,
      settings: {
        backoffStrategy: (attemptsMade, _type, error) => {
          if (error instanceof AlertDeliveryError && error.retryAfterMs !== undefined) {
            return Math.min(error.retryAfterMs, MAX_RETRY_DELAY_MS)
          }
          return Math.min(firstDelay * 2 ** Math.max(0, attemptsMade - 1), MAX_RETRY_DELAY_MS)
        },
      },
    },
  )
}

import { Job, Queue, type IRedisTransaction } from 'bullmq'
import { Redis } from 'ioredis'
import {
  DEDUPE_TTL_SECONDS,
  DEFAULT_QUEUE_PREFIX,
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  dedupeKey,
  jobIdFor,
} from './queues.js'
import type { EnqueueResult, WebhookEventQueue, WebhookJob } from './webhook-event-queue.js'

export type RedisWebhookEventQueueOptions = {
  /** @defaultValue redis://127.0.0.1:6379 */
  url?: string
  /** An ioredis connection to use instead of `url`; it stays open on close(). */
  connection?: Redis
  /** @defaultValue DEFAULT_QUEUE_PREFIX */
  prefix?: string
  /** @defaultValue DEDUPE_TTL_SECONDS (72 hours) */
  dedupeTtlSeconds?: number
  /** How long a connect, write or ping may take before it counts as failed. @defaultValue 5000 */
  timeoutMs?: number
  /** Connection errors; the queue keeps reconnecting. @defaultValue ignore them */
  onError?: (error: Error) => void
}

/** The job payload; the event envelope stays as delivered so workers parse it with the api-client schemas. */
export type WebhookJobData = Pick<WebhookJob, 'event' | 'receivedAt' | 'ignored'>

type Transaction = IRedisTransaction & {
  set(key: string, value: string, nx: 'NX', ex: 'EX', seconds: number): Transaction
}

class QueueTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`The queue did not answer the ${what} within ${ms} ms.`)
    this.name = 'QueueTimeoutError'
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueueTimeoutError(what, ms)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * The webhook event queue on BullMQ and Redis. Each batch is one MULTI: per event a `SET NX EX` of its seen key
 * (which tells new from duplicate) and the job add, whose BullMQ deduplication id keeps a redelivery from adding it
 * again within the window even after the finished job was removed.
 */
export function createRedisWebhookEventQueue(options: RedisWebhookEventQueueOptions = {}): WebhookEventQueue {
  const prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX
  const ttlSeconds = options.dedupeTtlSeconds ?? DEDUPE_TTL_SECONDS
  const timeoutMs = options.timeoutMs ?? 5_000
  const onError = options.onError ?? (() => undefined)
  // No offline queue: while Redis is away a write fails at once (503, the sender retries) instead of waiting.
  const connection =
    options.connection ??
    new Redis(options.url ?? 'redis://127.0.0.1:6379', {
      maxRetriesPerRequest: null,
      enableOfflineQueue: false,
    })
  if (!options.connection) connection.on('error', onError)
  const queue = new Queue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: WEBHOOK_JOB_OPTIONS,
  })
  queue.on('error', onError)
  const client = () => withTimeout(queue.backend.client, timeoutMs, 'connection')

  return {
    async addBatch(jobs) {
      if (jobs.length === 0) return []
      const multi = (await client()).multi() as Transaction
      for (const job of jobs) {
        multi.set(dedupeKey(prefix, job.eventId), job.receivedAt, 'NX', 'EX', ttlSeconds)
        const data: WebhookJobData = { event: job.event, receivedAt: job.receivedAt }
        if (job.ignored) data.ignored = job.ignored
        const bullJob = new Job(
          queue,
          job.type,
          data,
          { deduplication: { id: job.eventId, ttl: ttlSeconds * 1000 } },
          jobIdFor(job.eventId),
        )
        // The add is only queued on the MULTI here; its result comes back from exec() below.
        void bullJob.addJob(multi)
      }
      const replies = await withTimeout(multi.exec(), timeoutMs, 'write')
      if (!replies) throw new Error('The queue write was aborted.')
      const results: EnqueueResult[] = []
      const failedKeys: string[] = []
      jobs.forEach((job, index) => {
        const [setError, set] = replies[2 * index] ?? [new Error('no reply')]
        const [addError, added] = replies[2 * index + 1] ?? [new Error('no reply')]
        if (setError || addError || (typeof added === 'number' && added < 0)) {
          if (!setError && set === 'OK') failedKeys.push(dedupeKey(prefix, job.eventId))
          results.push('failed')
        } else {
          results.push(set === 'OK' ? 'queued' : 'duplicate')
        }
      })
      // The job did not land, so its seen key must not turn the sender's retry into a 200.
      if (failedKeys.length > 0) await (await client()).del(...failedKeys)
      return results
    },
    async ping() {
      await withTimeout(
        client().then(() => connection.ping()),
        timeoutMs,
        'ping',
      )
    },
    async close() {
      await queue.close()
      if (!options.connection) connection.disconnect()
    },
  }
}

import {
  DelayedError,
  Queue,
  Worker,
  createPostgresBackend,
  type DefaultJobOptions,
  type Processor,
  type WorkerOptions,
} from 'bullmq'
import { Redis } from 'ioredis'
import { SpanKind, contextFrom, inSpan } from '../observability/index.js'

/** How a job's run ended: `delayed` is a job that moved itself back to wait (a bank's Retry-After), no failure. */
export type JobOutcome = 'completed' | 'failed' | 'delayed'

/** Told after every job a worker ran: its queue, how it ended, how long it took (job metrics). */
export type JobObserver = (queue: string, outcome: JobOutcome, seconds: number) => void

/**
 * Where bankrec's queues live: Redis when REDIS_URL is set, else BullMQ's PostgreSQL backend in bankrec's own
 * database, so a zero-config run needs nothing but Node.
 */
export type QueueBackendConfig = (
  | { kind: 'redis'; url: string; prefix: string }
  | { kind: 'postgres'; connectionString: string; schema: string }
) & {
  /**
   * Lock duration of every worker's jobs: how long after a worker crashed its running jobs are handed to another
   * (JOB_LOCK_SECONDS). A worker's own options win. @defaultValue BullMQ's 30000
   */
  jobLockMs?: number
  /** Told after every job of every worker on this backend. */
  observeJob?: JobObserver
}

export function describeQueueBackend(config: QueueBackendConfig): string {
  return config.kind === 'redis' ? `Redis (prefix ${config.prefix})` : `PostgreSQL (schema ${config.schema})`
}

function redisConnection(url: string): Redis {
  // BullMQ needs maxRetriesPerRequest null: its blocking commands must wait through reconnects.
  return new Redis(url, { maxRetriesPerRequest: null })
}

/**
 * BullMQ's PostgreSQL backend opens a pool (plus a LISTEN connection for workers) per queue and per worker; a
 * worker process has a dozen of them. One query connection each is enough (LISTEN has its own), and pg's default of 10 per pool
 * let one worker process hold ~35 sessions, so three workers exhausted a default max_connections of 100.
 */
const PG_QUEUE_POOL_MAX = 1

function pgQueueConnection(config: Extract<QueueBackendConfig, { kind: 'postgres' }>) {
  // migrate: true in the config-object form, else workers loop on "schema not initialized".
  return {
    connectionString: config.connectionString,
    schema: config.schema,
    migrate: true,
    max: PG_QUEUE_POOL_MAX,
  }
}

const MAX_STALLED_COUNT = 5

/** A BullMQ queue on the configured backend; close() also closes the connection it opened. */
export function createBackendQueue<T>(
  name: string,
  config: QueueBackendConfig,
  defaultJobOptions: DefaultJobOptions = {},
): Queue<T> {
  if (config.kind === 'redis') {
    const connection = redisConnection(config.url)
    const queue = new Queue<T>(name, { connection, prefix: config.prefix, defaultJobOptions })
    const close = queue.close.bind(queue)
    queue.close = async () => {
      await close()
      connection.disconnect()
    }
    return queue
  }
  return new Queue(
    name,
    {
      connection: pgQueueConnection(config),
      defaultJobOptions,
    },
    createPostgresBackend,
  ) as unknown as Queue<T>
}

/** A BullMQ worker on the configured backend; close() also closes the connection it opened. */
export function createBackendWorker<T, R = unknown>(
  name: string,
  config: QueueBackendConfig,
  processor: Processor<T, R>,
  options: Omit<WorkerOptions, 'connection' | 'prefix'> = {},
): Worker<T, R> {
  processor = observed(name, processor, config.observeJob)
  options = {
    // Every job's handler is idempotent, so a job whose workers keep crashing under it is tried again rather than
    // failed after one stall (BullMQ's default): a failed webhook-event job would be an accepted event never handled.
    maxStalledCount: MAX_STALLED_COUNT,
    ...(config.jobLockMs ? { lockDuration: config.jobLockMs, stalledInterval: config.jobLockMs } : {}),
    ...options,
  }
  if (config.kind === 'redis') {
    const connection = redisConnection(config.url)
    const worker = new Worker<T, R>(name, processor, { ...options, connection, prefix: config.prefix })
    const close = worker.close.bind(worker)
    worker.close = async (force?: boolean) => {
      await close(force)
      connection.disconnect()
    }
    return worker
  }
  return new Worker(
    name,
    processor as Processor,
    {
      ...options,
      connection: pgQueueConnection(config),
    },
    createPostgresBackend,
  ) as unknown as Worker<T, R>
}

/**
 * Each job runs in a consumer span that continues the trace its data carries (`traceparent`, set by the
 * producer: the receiver for a webhook event), and tells `observe` how it ended.
 */
function observed<T, R>(name: string, processor: Processor<T, R>, observe?: JobObserver): Processor<T, R> {
  return async (job, token, signal) => {
    const started = performance.now()
    const seconds = () => (performance.now() - started) / 1000
    try {
      const result = await inSpan(
        `${name} process`,
        {
          kind: SpanKind.CONSUMER,
          parent: contextFrom(job.data as Record<string, unknown> | undefined),
          attributes: {
            'messaging.system': 'bullmq',
            'messaging.operation.type': 'process',
            'messaging.destination.name': name,
            'messaging.message.id': job.id ?? '',
          },
        },
        () => processor(job, token, signal),
      )
      observe?.(name, 'completed', seconds())
      return result
    } catch (error) {
      observe?.(name, error instanceof DelayedError ? 'delayed' : 'failed', seconds())
      throw error
    }
  }
}

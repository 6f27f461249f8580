import {
  Queue,
  Worker,
  createPostgresBackend,
  type DefaultJobOptions,
  type Processor,
  type WorkerOptions,
} from 'bullmq'
import { Redis } from 'ioredis'

/**
 * Where bankrec's queues live: Redis when REDIS_URL is set, else BullMQ's PostgreSQL backend in bankrec's own
 * database, so a zero-config run needs nothing but Node.
 */
export type QueueBackendConfig =
  | { kind: 'redis'; url: string; prefix: string }
  | { kind: 'postgres'; connectionString: string; schema: string }

export function describeQueueBackend(config: QueueBackendConfig): string {
  return config.kind === 'redis' ? `Redis (prefix ${config.prefix})` : `PostgreSQL (schema ${config.schema})`
}

function redisConnection(url: string): Redis {
  // BullMQ needs maxRetriesPerRequest null: its blocking commands must wait through reconnects.
  return new Redis(url, { maxRetriesPerRequest: null })
}

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
      // migrate: true in the config-object form, else workers loop on "schema not initialized".
      connection: { connectionString: config.connectionString, schema: config.schema, migrate: true },
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
      connection: { connectionString: config.connectionString, schema: config.schema, migrate: true },
    },
    createPostgresBackend,
  ) as unknown as Worker<T, R>
}

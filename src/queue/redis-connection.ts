import { Redis } from 'ioredis'

// The Redis connection of the webhook event queue and its inbox forwarder: ready, or failing fast.

/** Thrown when Redis does not answer in time; callers map it to 503 (the sender retries). */
export class QueueTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`The queue did not answer the ${what} within ${ms} ms.`)
    this.name = 'QueueTimeoutError'
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueueTimeoutError(what, ms)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Resolves once the connection is ready; a connection still (re)connecting gets `ms` to get there. */
export function whenReady(connection: Redis, ms: number): Promise<void> {
  if (connection.status === 'ready') return Promise.resolve()
  let onReady = () => undefined as void
  const ready = new Promise<void>((resolve) => {
    onReady = resolve
    connection.once('ready', onReady)
  })
  return withTimeout(ready, ms, 'connection').finally(() => connection.off('ready', onReady))
}

/**
 * The connection given (left to its owner), or a new one to `url` with no offline queue: while Redis is away a
 * command fails at once (a 503, a forwarding round that ends) instead of waiting for it.
 */
export function queueConnection(
  options: { connection?: Redis; url?: string },
  onError: (error: Error) => void,
): Redis {
  if (options.connection) return options.connection
  const connection = new Redis(options.url ?? 'redis://127.0.0.1:6379', {
    maxRetriesPerRequest: null,
    enableOfflineQueue: false,
  })
  connection.on('error', onError)
  return connection
}

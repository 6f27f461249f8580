import type { Clock } from '../../clock/index.js'
import { isFull, refill, take, waitMs, type Bucket, type BucketPolicy } from './token-bucket.js'

export type FailureThrottleOptions = BucketPolicy & {
  clock: Clock
  /** Clients remembered at once; the least recently failing are forgotten first. @defaultValue 10000 */
  maxClients?: number
}

/**
 * Failed token attempts per client, as a token bucket each: a failure takes a token, and a client whose bucket
 * is empty is refused before its token is even looked at, until a token has come back. Only clients with
 * recent failures are held (a full bucket is the same as none), at most `maxClients` of them, in this process.
 */
export type FailureThrottle = {
  /** Milliseconds this client must wait before it may try a token again; 0 when it may now. */
  retryAfterMs(client: string): number
  /** Records a failed attempt of this client. */
  fail(client: string): void
}

export function createFailureThrottle(options: FailureThrottleOptions): FailureThrottle {
  const buckets = new Map<string, Bucket>()
  const maxClients = options.maxClients ?? 10_000
  const current = (client: string) => {
    const bucket = refill(buckets.get(client), options.clock.now().getTime(), options)
    if (isFull(bucket, options)) buckets.delete(client)
    return bucket
  }
  return {
    retryAfterMs: (client) => waitMs(current(client), options),
    fail(client) {
      const bucket = take(current(client), options)
      // Re-inserted last: the Map's order is then least recently failing first, the ones to forget.
      buckets.delete(client)
      buckets.set(client, bucket)
      if (buckets.size > maxClients) buckets.delete(buckets.keys().next().value!)
    },
  }
}

/**
 * A token bucket's state, counted in milliseconds of credit so the arithmetic stays exact: one token is
 * `refillMs` of credit, and credit grows by one per millisecond up to `burst` tokens' worth.
 */
export type Bucket = { creditMs: number; at: number }

export type BucketPolicy = {
  /** Most tokens a bucket holds (and starts with). */
  burst: number
  /** Milliseconds to regain one token. */
  refillMs: number
}

const fullMs = (policy: BucketPolicy) => policy.burst * policy.refillMs

/** The bucket at `now` (ms): refilled for the time passed since it was last seen, up to the burst. */
export function refill(bucket: Bucket | undefined, now: number, policy: BucketPolicy): Bucket {
  if (!bucket) return { creditMs: fullMs(policy), at: now }
  return { creditMs: Math.min(fullMs(policy), bucket.creditMs + Math.max(0, now - bucket.at)), at: now }
}

export function isFull(bucket: Bucket, policy: BucketPolicy): boolean {
  return bucket.creditMs >= fullMs(policy)
}

/** Milliseconds until the bucket holds a whole token; 0 when it holds one now. */
export function waitMs(bucket: Bucket, policy: BucketPolicy): number {
  return Math.max(0, policy.refillMs - bucket.creditMs)
}

/** The bucket after one token is taken (none left stays none). */
export function take(bucket: Bucket, policy: BucketPolicy): Bucket {
  return { creditMs: Math.max(0, bucket.creditMs - policy.refillMs), at: bucket.at }
}

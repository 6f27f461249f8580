/** What one attempt ended with, as the retry policy sees it. */
export type AttemptOutcome =
  | { kind: 'network' }
  | { kind: 'timeout' }
  | { kind: 'response'; status: number; code?: string | undefined; retryAfterMs?: number | undefined }

export type RetryInput = {
  method: string
  path: string
  /** Whether the request carries an Idempotency-Key header. */
  hasIdempotencyKey: boolean
  outcome: AttemptOutcome
  /** Retries already made for this call (0 after the first attempt failed). */
  retriesSoFar: number
  maxRetries: number
  /** A number in [0, 1) for jitter. */
  random: number
  /** First back-off step. @defaultValue 500 */
  baseDelayMs?: number
  /** Longest back-off step before jitter. @defaultValue 8000 */
  maxDelayMs?: number
  /** A Retry-After longer than this is surfaced to the caller instead of slept through. @defaultValue 60000 */
  maxRetryAfterMs?: number
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: string }

export const DEFAULT_BASE_DELAY_MS = 500
export const DEFAULT_MAX_DELAY_MS = 8_000
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000

/** RFC 9110 §9.2.2: methods whose repetition has the same effect as one request. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'])

const CONNECTION_SYNC_PATH = /^\/v1\/connections\/[^/]+\/sync$/

/** Decides whether a failed attempt is tried again, and after how long. Pure: no clock, no randomness inside. */
export function decideRetry(input: RetryInput): RetryDecision {
  const { outcome } = input
  const method = input.method.toUpperCase()
  const maxRetryAfterMs = input.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS

  // Out of attempts: the caller gets the last error.
  if (input.retriesSoFar >= input.maxRetries) return { retry: false, reason: 'max_retries' }

  // A retryable outcome must not be retried when repeating the request could repeat its effect: a POST without
  // an Idempotency-Key might create a second resource (PATCH is not idempotent by RFC 9110 either).
  if (!IDEMPOTENT_METHODS.has(method) && !input.hasIdempotencyKey) {
    return { retry: false, reason: 'not_idempotent' }
  }

  if (outcome.kind === 'network' || outcome.kind === 'timeout') {
    // No answer: the request may or may not have taken effect, which an idempotent request makes harmless.
    return { retry: true, delayMs: backoff(input) }
  }

  if (outcome.status === 429) {
    // The connection sync cooldown lasts up to 45 minutes after any sync (seed, Limits): sleeping through it
    // would stall the caller, so it surfaces as a rate-limit error carrying retryAfterMs.
    if (outcome.code === 'sync_cooldown' || (method === 'PUT' && CONNECTION_SYNC_PATH.test(input.path))) {
      return { retry: false, reason: 'sync_cooldown' }
    }
    return afterRetryAfter(input, outcome.retryAfterMs, maxRetryAfterMs)
  }

  // 501 Not Implemented will not change on a retry; other 5xx are transient server or gateway trouble.
  if (outcome.status >= 500 && outcome.status !== 501) {
    return afterRetryAfter(input, outcome.retryAfterMs, maxRetryAfterMs)
  }

  // 408: the server gave up waiting for the request; sending it again is the documented remedy.
  if (outcome.status === 408) return { retry: true, delayMs: backoff(input) }

  // Every other answer (4xx) is the same on a retry.
  return { retry: false, reason: 'not_retryable_status' }
}

function afterRetryAfter(
  input: RetryInput,
  retryAfterMs: number | undefined,
  maxRetryAfterMs: number,
): RetryDecision {
  // A wait longer than the cap blocks the caller for too long: surface it with retryAfterMs instead.
  if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) {
    return { retry: false, reason: 'retry_after_too_long' }
  }
  // Never earlier than the server asked (RFC 9110 §10.2.3), never less than our own back-off.
  return { retry: true, delayMs: Math.max(retryAfterMs ?? 0, backoff(input)) }
}

/** Exponential back-off with equal jitter: half the step is fixed, half random, so retries spread out. */
function backoff(input: RetryInput): number {
  const base = input.baseDelayMs ?? DEFAULT_BASE_DELAY_MS
  const max = input.maxDelayMs ?? DEFAULT_MAX_DELAY_MS
  const step = Math.min(max, base * 2 ** input.retriesSoFar)
  return Math.round(step / 2 + (input.random * step) / 2)
}

/**
 * Retry-After (RFC 9110 §10.2.3) as milliseconds from `nowMs`: delay-seconds or an HTTP date. Undefined when
 * absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  if (Number.isNaN(date) || !/[a-z]/i.test(trimmed)) return undefined
  return Math.max(0, date - nowMs)
}

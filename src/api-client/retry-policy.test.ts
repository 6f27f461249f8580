import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decideRetry, parseRetryAfter, type AttemptOutcome, type RetryInput } from './retry-policy.js'

const NETWORK: AttemptOutcome = { kind: 'network' }
const status = (code: number, extra: Partial<Extract<AttemptOutcome, { kind: 'response' }>> = {}) =>
  ({ kind: 'response', status: code, ...extra }) as const

function input(overrides: Partial<RetryInput> = {}): RetryInput {
  return {
    method: 'GET',
    path: '/v1/transactions',
    hasIdempotencyKey: false,
    outcome: NETWORK,
    retriesSoFar: 0,
    maxRetries: 3,
    random: 0.5,
    ...overrides,
  }
}

describe('decideRetry', () => {
  describe('which requests may be repeated', () => {
    it.each(['GET', 'PUT', 'DELETE'])('retries a %s after a network error', (method) => {
      expect(decideRetry(input({ method })).retry).toBe(true)
    })

    it('never retries a POST without an Idempotency-Key, whatever went wrong', () => {
      for (const outcome of [NETWORK, { kind: 'timeout' } as const, status(503), status(429)]) {
        expect(decideRetry(input({ method: 'POST', outcome }))).toEqual({
          retry: false,
          reason: 'not_idempotent',
        })
      }
    })

    it('retries a POST that carries an Idempotency-Key after a 5xx, a 429 or no answer', () => {
      for (const outcome of [NETWORK, { kind: 'timeout' } as const, status(500), status(429)]) {
        expect(decideRetry(input({ method: 'POST', hasIdempotencyKey: true, outcome })).retry).toBe(true)
      }
    })

    it('does not retry a PATCH without an Idempotency-Key', () => {
      expect(decideRetry(input({ method: 'PATCH', outcome: status(502) })).retry).toBe(false)
    })
  })

  describe('which outcomes are retried', () => {
    it.each([500, 502, 503, 504, 408, 429])('retries a GET answered %i', (code) => {
      expect(decideRetry(input({ outcome: status(code) })).retry).toBe(true)
    })

    it.each([400, 401, 403, 404, 409, 410, 422, 501])('does not retry a GET answered %i', (code) => {
      expect(decideRetry(input({ outcome: status(code) })).retry).toBe(false)
    })

    it('retries after a timeout', () => {
      expect(decideRetry(input({ outcome: { kind: 'timeout' } })).retry).toBe(true)
    })

    it('stops once maxRetries retries were made', () => {
      expect(decideRetry(input({ retriesSoFar: 2, maxRetries: 3 })).retry).toBe(true)
      expect(decideRetry(input({ retriesSoFar: 3, maxRetries: 3 }))).toEqual({
        retry: false,
        reason: 'max_retries',
      })
      expect(decideRetry(input({ maxRetries: 0 })).retry).toBe(false)
    })
  })

  describe('the connection sync cooldown', () => {
    it('surfaces a 429 sync_cooldown instead of sleeping through it', () => {
      const outcome = status(429, { code: 'sync_cooldown', retryAfterMs: 45 * 60_000 })
      expect(decideRetry(input({ method: 'PUT', path: '/v1/connections/c1/sync', outcome }))).toEqual({
        retry: false,
        reason: 'sync_cooldown',
      })
    })

    it('surfaces any 429 of PUT /v1/connections/{id}/sync even with a short Retry-After', () => {
      const outcome = status(429, { code: 'rate_limited', retryAfterMs: 1000 })
      expect(decideRetry(input({ method: 'PUT', path: '/v1/connections/c1/sync', outcome })).retry).toBe(
        false,
      )
    })
  })

  describe('Retry-After', () => {
    it('waits at least as long as Retry-After asks', () => {
      const decision = decideRetry(input({ outcome: status(429, { retryAfterMs: 7000 }) }))
      expect(decision).toEqual({ retry: true, delayMs: 7000 })
    })

    it('honours Retry-After on a 503', () => {
      expect(decideRetry(input({ outcome: status(503, { retryAfterMs: 2000 }) }))).toEqual({
        retry: true,
        delayMs: 2000,
      })
    })

    it('surfaces a Retry-After longer than the cap instead of sleeping', () => {
      const outcome = status(429, { retryAfterMs: 61_000 })
      expect(decideRetry(input({ outcome }))).toEqual({ retry: false, reason: 'retry_after_too_long' })
      expect(decideRetry(input({ outcome, maxRetryAfterMs: 120_000 })).retry).toBe(true)
    })

    it('keeps its own back-off when Retry-After is shorter', () => {
      const decision = decideRetry(
        input({ retriesSoFar: 2, random: 0, outcome: status(429, { retryAfterMs: 100 }) }),
      )
      expect(decision).toEqual({ retry: true, delayMs: 1000 })
    })
  })

  describe('back-off', () => {
    it('doubles the step on each retry, half fixed and half jitter', () => {
      const delays = [0, 1, 2, 3].map((retriesSoFar) => {
        const low = decideRetry(input({ retriesSoFar, maxRetries: 10, random: 0 }))
        const high = decideRetry(input({ retriesSoFar, maxRetries: 10, random: 0.999999 }))
        return [low.retry && low.delayMs, high.retry && high.delayMs]
      })
      expect(delays).toEqual([
        [250, 500],
        [500, 1000],
        [1000, 2000],
        [2000, 4000],
      ])
    })

    it('never exceeds maxDelayMs however many retries, unless Retry-After asks for more', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 60 }),
          fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
          fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }),
          (retriesSoFar, random, retryAfterMs) => {
            const decision = decideRetry(
              input({ retriesSoFar, maxRetries: 100, random, outcome: status(503, { retryAfterMs }) }),
            )
            if (!decision.retry) return false
            return (
              decision.delayMs <= Math.max(8000, retryAfterMs ?? 0) && decision.delayMs >= (retryAfterMs ?? 0)
            )
          },
        ),
      )
    })
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-03-02T09:00:00Z')

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000)
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000)
  })

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfter('Mon, 02 Mar 2026 09:00:30 GMT', now)).toBe(30_000)
  })

  it('treats a date in the past as no wait', () => {
    expect(parseRetryAfter('Mon, 02 Mar 2026 08:00:00 GMT', now)).toBe(0)
  })

  it('ignores a missing or unreadable value', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined()
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter('-5', now)).toBeUndefined()
  })
})

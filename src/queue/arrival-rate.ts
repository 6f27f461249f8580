// When a queue writes its inbox instead of the jobs: the arrival rate both queues switch on (the Redis queue
// above 1,000 events/s, the PostgreSQL queue above 500). Pure.

/** Events per second over the last whole second and the one under way, whichever is higher. */
export type ArrivalRate = {
  /** Counts `events` arrived at `nowMs` and returns the rate including them. */
  note(events: number, nowMs: number): number
}

export function createArrivalRate(): ArrivalRate {
  let windowStart = Number.NEGATIVE_INFINITY
  let inWindow = 0
  let lastRate = 0
  return {
    note(events, nowMs) {
      if (nowMs - windowStart >= 1_000) {
        // A gap of more than a window means nothing arrived in the last one.
        lastRate = nowMs - windowStart < 2_000 ? inWindow : 0
        windowStart = nowMs
        inWindow = 0
      }
      inWindow += events
      return Math.max(lastRate, inWindow)
    },
  }
}

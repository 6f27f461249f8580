/** The one source of time. Everything that reads the time takes a Clock so tests can control it. */
export type Clock = { now(): Date }

export const systemClock: Clock = { now: () => new Date() }

export type VirtualClock = Clock & {
  /** Moves the clock forward; never backward. */
  advance(seconds: number): Date
  /** Milliseconds the clock is ahead of the real time it follows (or of its start, when frozen). */
  offsetMs(): number
}

export type VirtualClockOptions = {
  /** Where the clock starts. @defaultValue the real time */
  start?: Date
  /**
   * Whether the clock moves forward with real time between advances. Tests that need exact timestamps freeze it.
   * @defaultValue true
   */
  followRealTime?: boolean
  /** The real time source it follows. @defaultValue systemClock */
  realClock?: Clock
}

export function createVirtualClock(options: VirtualClockOptions = {}): VirtualClock {
  const realClock = options.realClock ?? systemClock
  const followRealTime = options.followRealTime ?? true
  const realStart = realClock.now().getTime()
  const start = (options.start ?? realClock.now()).getTime()
  let advancedMs = 0
  const nowMs = () => start + advancedMs + (followRealTime ? realClock.now().getTime() - realStart : 0)
  return {
    now: () => new Date(nowMs()),
    advance(seconds: number) {
      if (!Number.isFinite(seconds) || seconds < 0) {
        throw new RangeError(`clock can only move forward by a finite number of seconds, got ${seconds}`)
      }
      advancedMs += Math.round(seconds * 1000)
      return new Date(nowMs())
    },
    offsetMs: () => nowMs() - (followRealTime ? realClock.now().getTime() : start),
  }
}

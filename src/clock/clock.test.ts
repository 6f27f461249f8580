import { describe, expect, it } from 'vitest'
import { createVirtualClock, type Clock } from './index.js'

function manualRealClock(startMs: number): Clock & { tick(ms: number): void } {
  let now = startMs
  return { now: () => new Date(now), tick: (ms) => (now += ms) }
}

describe('virtual clock', () => {
  it('starts at the real time and moves forward with it', () => {
    const real = manualRealClock(1_000_000)
    const clock = createVirtualClock({ realClock: real })
    expect(clock.now().getTime()).toBe(1_000_000)
    real.tick(500)
    expect(clock.now().getTime()).toBe(1_000_500)
  })

  it('moves forward by control on top of real time', () => {
    const real = manualRealClock(0)
    const clock = createVirtualClock({ realClock: real })
    clock.advance(60)
    real.tick(1000)
    expect(clock.now().getTime()).toBe(61_000)
    expect(clock.offsetMs()).toBe(60_000)
  })

  it('stays put when frozen until advanced', () => {
    const real = manualRealClock(0)
    const clock = createVirtualClock({ realClock: real, start: new Date(5000), followRealTime: false })
    real.tick(10_000)
    expect(clock.now().getTime()).toBe(5000)
    expect(clock.advance(2).getTime()).toBe(7000)
  })

  it('refuses to move backward', () => {
    expect(() => createVirtualClock().advance(-1)).toThrow(/forward/)
  })
})

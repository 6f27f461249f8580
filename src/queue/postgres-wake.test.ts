import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createWake } from './postgres-wake.js'

/** A send whose calls the test finishes by hand; `started` counts the sends begun. */
function sender() {
  const finishers: Array<() => void> = []
  const send = () => new Promise<void>((resolve) => finishers.push(resolve))
  return { send, started: () => finishers.length, finish: (i: number) => finishers[i]?.() }
}

describe('a wake-up after a commit', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('sends one at a time, and one more after it for every commit that came while it was in flight', async () => {
    const s = sender()
    const wake = createWake(s.send)
    wake()
    wake()
    wake()
    expect(s.started()).toBe(1)
    s.finish(0)
    await vi.runAllTimersAsync()
    expect(s.started()).toBe(2)
    s.finish(1)
    await vi.runAllTimersAsync()
    expect(s.started()).toBe(2)
  })

  it('spaces the sends, sending the one asked for meanwhile when the spacing is over', async () => {
    const s = sender()
    const wake = createWake(s.send, 20)
    wake()
    s.finish(0)
    await vi.advanceTimersByTimeAsync(5)
    wake()
    wake()
    expect(s.started()).toBe(1)
    await vi.advanceTimersByTimeAsync(14)
    expect(s.started()).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(s.started()).toBe(2)
  })

  it('sends a pending one at once when settled, and resolves when nothing is in flight', async () => {
    const s = sender()
    const wake = createWake(s.send, 1_000)
    wake()
    s.finish(0)
    await vi.advanceTimersByTimeAsync(1)
    wake()
    const settled = wake.settled()
    expect(s.started()).toBe(2)
    let done = false
    void settled.then(() => (done = true))
    await vi.advanceTimersByTimeAsync(0)
    expect(done).toBe(false)
    s.finish(1)
    await settled
    expect(done).toBe(true)
  })
})

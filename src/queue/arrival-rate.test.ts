import { describe, expect, it } from 'vitest'
import { createArrivalRate } from './arrival-rate.js'

describe('createArrivalRate', () => {
  it('counts what arrived in the current second', () => {
    const rate = createArrivalRate()
    expect(rate.note(3, 0)).toBe(3)
    expect(rate.note(2, 400)).toBe(5)
    expect(rate.note(1, 999)).toBe(6)
  })

  it('remembers the last whole second while the next one starts', () => {
    const rate = createArrivalRate()
    rate.note(1_500, 0)
    expect(rate.note(1, 1_000)).toBe(1_500)
    expect(rate.note(1, 1_500)).toBe(1_500)
    expect(rate.note(1, 2_000)).toBe(2)
  })

  it('forgets a busy second once a quiet gap longer than a second follows it', () => {
    const rate = createArrivalRate()
    rate.note(5_000, 0)
    expect(rate.note(1, 2_500)).toBe(1)
  })
})

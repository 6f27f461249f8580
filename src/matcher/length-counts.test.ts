import { describe, expect, it } from 'vitest'
import { LengthCounts } from './length-counts.js'

describe('LengthCounts', () => {
  it('has a length while some key of it is counted', () => {
    const counts = new LengthCounts()
    expect(counts.has(6)).toBe(false)
    counts.add(6, 1)
    counts.add(6, 1)
    expect(counts.has(6)).toBe(true)
    expect(counts.has(5)).toBe(false)
    expect(counts.has(7)).toBe(false)
    counts.add(6, -1)
    expect(counts.has(6)).toBe(true)
    counts.add(6, -1)
    expect(counts.has(6)).toBe(false)
  })

  it('counts lengths beyond the dense array alike', () => {
    const counts = new LengthCounts()
    counts.add(100_000, 2)
    expect(counts.has(100_000)).toBe(true)
    expect(counts.has(99_999)).toBe(false)
    counts.add(100_000, -2)
    expect(counts.has(100_000)).toBe(false)
  })

  it('has no negative length', () => {
    const counts = new LengthCounts()
    counts.add(3, 1)
    expect(counts.has(-1)).toBe(false)
  })
})

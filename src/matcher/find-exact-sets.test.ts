import { describe, expect, it } from 'vitest'
import { findExactSets } from './find-exact-sets.js'

describe('findExactSets', () => {
  it('finds the smallest set first', () => {
    expect(findExactSets([10, 20, 30], 30, 5)).toEqual({ size: 1, first: [2], unique: true })
  })

  it('finds the lexicographically first (oldest) set and says it is not unique', () => {
    expect(findExactSets([5, 25, 10, 20], 30, 5)).toEqual({ size: 2, first: [0, 1], unique: false })
  })

  it('finds sets of four and five', () => {
    expect(findExactSets([1, 2, 4, 8, 16, 32], 15, 5)?.first).toEqual([0, 1, 2, 3])
    expect(findExactSets([1, 2, 4, 8, 16, 32], 31, 5)?.first).toEqual([0, 1, 2, 3, 4])
  })

  it('never uses more than maxSize values or one value twice', () => {
    expect(findExactSets([1, 2, 4, 8, 16, 32], 63, 5)).toBeNull()
    expect(findExactSets([10], 20, 5)).toBeNull()
  })

  it('skips sets the caller rejects', () => {
    expect(findExactSets([30, 30], 30, 5, (set) => set[0] !== 0)).toEqual({
      size: 1,
      first: [1],
      unique: true,
    })
  })

  it('agrees with trying every subset', () => {
    const values = [3, 7, 7, 12, 5, 9, 14, 2, 8, 11]
    for (let target = 1; target <= 60; target++) {
      let best: number[] | null = null
      for (let mask = 1; mask < 1 << values.length; mask++) {
        const set = values.map((_, index) => index).filter((index) => mask & (1 << index))
        if (set.length > 5 || set.reduce((total, index) => total + (values[index] as number), 0) !== target)
          continue
        if (!best || set.length < best.length || (set.length === best.length && set.join() < best.join())) {
          if (!best || set.length < best.length || compare(set, best) < 0) best = set
        }
      }
      expect(findExactSets(values, target, 5)?.first ?? null).toEqual(best)
    }
  })
})

function compare(a: number[], b: number[]): number {
  for (let index = 0; index < a.length; index++) {
    if (a[index] !== b[index]) return (a[index] as number) - (b[index] as number)
  }
  return 0
}

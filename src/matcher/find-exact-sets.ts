/** The smallest sets summing to a target: the lexicographically first (sorted indices) and whether it is unique. */
export type ExactSets = { size: number; first: number[]; unique: boolean }

type Suffixes = Map<number, number[][]>

/** Every ascending index tuple of `length` 1 or 2, by its sum, each list in lexicographic order. */
function suffixesOf(values: readonly number[], length: number): Suffixes {
  const bySum: Suffixes = new Map()
  const add = (sum: number, tuple: number[]) => {
    const list = bySum.get(sum)
    if (list) list.push(tuple)
    else bySum.set(sum, [tuple])
  }
  for (let i = 0; i < values.length; i++) {
    if (length === 1) add(values[i] as number, [i])
    else
      for (let j = i + 1; j < values.length; j++) add((values[i] as number) + (values[j] as number), [i, j])
  }
  return bySum
}

/** The `count` largest values, largest first (what sets of up to `count` values can reach): no sort of them all. */
function largestOf(values: readonly number[], count: number): number[] {
  const largest: number[] = []
  for (const value of values) {
    if (largest.length < count) largest.push(value)
    else if (count > 0 && value > (largest[count - 1] as number)) largest[count - 1] = value
    else continue
    // The new value moves up to its place.
    for (let at = largest.length - 1; at > 0 && (largest[at - 1] as number) < value; at--) {
      largest[at] = largest[at - 1] as number
      largest[at - 1] = value
    }
  }
  return largest
}

/** The `count` smallest values, smallest first (what sets of up to `count` values sum to at least). */
function smallestOf(values: readonly number[], count: number): number[] {
  const smallest: number[] = []
  for (const value of values) {
    if (smallest.length < count) smallest.push(value)
    else if (count > 0 && value < (smallest[count - 1] as number)) smallest[count - 1] = value
    else continue
    for (let at = smallest.length - 1; at > 0 && (smallest[at - 1] as number) > value; at--) {
      smallest[at] = smallest[at - 1] as number
      smallest[at - 1] = value
    }
  }
  return smallest
}

/**
 * Finds the sets of at most `maxSize` (≤ 5) of `values` (positive safe integers, in age order) that sum exactly
 * to `target`, trying sizes from 1 up and stopping at the first size with an accepted set. Each set of size s is
 * a prefix of s − 1 or s − 2 indices, enumerated in lexicographic order and cut as soon as its sum reaches the
 * target, completed by a suffix of 1 or 2 later indices looked up by the sum still missing. So the first set
 * found is the lexicographically first, i.e. the oldest, and the work is O(n³) lookups for n values at worst
 * (n = 20: about 1,600), never the O(n⁵) of trying every set.
 */
export function findExactSets(
  values: readonly number[],
  target: number,
  maxSize: number,
  accept: (set: readonly number[]) => boolean = () => true,
): ExactSets | null {
  const largest = largestOf(values, maxSize)
  const smallest = smallestOf(values, maxSize)
  if (values.length === 0 || target < (smallest[0] as number)) return null
  const suffixes: Suffixes[] = []
  let reach = 0
  let floor = 0
  for (let size = 1; size <= Math.min(maxSize, values.length); size++) {
    reach += largest[size - 1] as number
    // Values are positive: once the smallest `size` of them pass the target, no set of this size or more fits.
    floor += smallest[size - 1] as number
    if (floor > target) break
    if (reach < target) continue
    if (size === 1) {
      // Sets of one: the values equal to the target, in order, without building the table of sums.
      let first: number[] | null = null
      let found = 0
      for (let index = 0; index < values.length && found < 2; index++) {
        if (values[index] !== target) continue
        const set = [index]
        if (!accept(set)) continue
        first ??= set
        found++
      }
      if (first) return { size, first, unique: found === 1 }
      continue
    }
    const suffixLength = size >= 4 ? 2 : 1
    const bySum = (suffixes[suffixLength] ??= suffixesOf(values, suffixLength))
    const prefixLength = size - suffixLength
    let first: number[] | null = null
    let found = 0
    const prefix: number[] = []
    const extend = (from: number, sum: number): boolean => {
      if (prefix.length === prefixLength) {
        const after = prefixLength === 0 ? -1 : (prefix[prefixLength - 1] as number)
        for (const suffix of bySum.get(target - sum) ?? []) {
          if ((suffix[0] as number) <= after) continue
          const set = [...prefix, ...suffix]
          if (!accept(set)) continue
          first ??= set
          if (++found > 1) return true
        }
        return false
      }
      for (let index = from; index < values.length; index++) {
        const next = sum + (values[index] as number)
        if (next >= target) continue
        prefix.push(index)
        const done = extend(index + 1, next)
        prefix.pop()
        if (done) return true
      }
      return false
    }
    extend(0, 0)
    if (first) return { size, first, unique: found === 1 }
  }
  return null
}

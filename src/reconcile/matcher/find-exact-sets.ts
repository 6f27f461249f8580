/** The smallest sets summing to a target: how many there are, and the lexicographically first, as sorted indices. */
export type ExactSets = { size: number; first: number[]; count: number }

/**
 * Finds the sets of at most `maxSize` of `values` (all > 0) summing exactly to `target`, trying sizes from 1 up
 * and stopping at the first size with an accepted set. Values are tried largest first so a partial sum that
 * overshoots, or cannot reach the target with the slots left, cuts the search: at most Σ C(n, k) for k ≤ maxSize
 * partial sums are ever formed. With `values` in age order, the lexicographically first set is the oldest.
 */
export function findExactSets(
  values: readonly bigint[],
  target: bigint,
  maxSize: number,
  accept: (set: readonly number[]) => boolean = () => true,
): ExactSets | null {
  const order = values
    .map((_, index) => index)
    .sort((a, b) => {
      const difference = (values[b] as bigint) - (values[a] as bigint)
      return difference === 0n ? a - b : difference > 0n ? 1 : -1
    })
  for (let size = 1; size <= Math.min(maxSize, values.length); size++) {
    let first: number[] | null = null
    let count = 0
    const chosen: number[] = []
    const search = (from: number, sum: bigint): void => {
      const slots = size - chosen.length
      for (let position = from; position <= order.length - slots; position++) {
        const index = order[position] as number
        const value = values[index] as bigint
        if (sum + value * BigInt(slots) < target) return
        if (sum + value > target) continue
        chosen.push(index)
        if (slots > 1) {
          search(position + 1, sum + value)
        } else if (sum + value === target) {
          const set = [...chosen].sort((a, b) => a - b)
          if (accept(set)) {
            count++
            if (!first || compareSets(set, first) < 0) first = set
          }
        }
        chosen.pop()
      }
    }
    search(0, 0n)
    if (first) return { size, first, count }
  }
  return null
}

function compareSets(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < a.length; index++) {
    const difference = (a[index] as number) - (b[index] as number)
    if (difference !== 0) return difference
  }
  return 0
}

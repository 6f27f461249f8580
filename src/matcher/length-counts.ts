/** Lengths up to this are counted in an array; a longer one (no real key is) in a map. */
const DENSE_LIMIT = 256

/**
 * How many keys there are of each length (or shape: any integer ≥ 0), to tell whether a text's token can be one.
 * Asked once per token scanned: an array load, where a `Map` of numbers hashes the key and reads a bucket.
 */
export class LengthCounts {
  private readonly dense: number[] = []
  private readonly sparse = new Map<number, number>()

  add(length: number, delta: number): void {
    if (length >= DENSE_LIMIT) {
      const left = (this.sparse.get(length) ?? 0) + delta
      if (left > 0) this.sparse.set(length, left)
      else this.sparse.delete(length)
      return
    }
    while (this.dense.length <= length) this.dense.push(0)
    this.dense[length] = (this.dense[length] as number) + delta
  }

  has(length: number): boolean {
    if (length < this.dense.length) return (this.dense[length] as number) > 0
    return length >= DENSE_LIMIT && this.sparse.has(length)
  }
}

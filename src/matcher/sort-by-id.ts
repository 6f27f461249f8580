/**
 * `items` sorted by id, ascending, equal ids in the order given (stable). The sets the matcher gets are mostly a few
 * runs already in id order (the named invoices, then each customer's invoices), so the runs are merged: about one
 * inline comparison per item and run, where a comparator sort of a few dozen items makes several function calls
 * per item.
 */
export function sortById<T>(items: readonly T[], idOf: (item: T) => string): T[] {
  let keys = items.map(idOf)
  let values = items.slice()
  let bounds = [0]
  for (let at = 1; at < keys.length; at++)
    if ((keys[at] as string) < (keys[at - 1] as string)) bounds.push(at)
  bounds.push(keys.length)
  let nextKeys = new Array<string>(keys.length)
  let nextValues = new Array<T>(keys.length)
  while (bounds.length > 2) {
    const merged = [0]
    const runs = bounds.length - 1
    for (let run = 0; run < runs; run += 2) {
      const low = bounds[run] as number
      const middle = bounds[run + 1] as number
      const high = run + 2 <= runs ? (bounds[run + 2] as number) : middle
      let left = low
      let right = middle
      let out = low
      while (left < middle && right < high) {
        // Strictly less from the right only: equal ids keep their order.
        const from = (keys[right] as string) < (keys[left] as string) ? right++ : left++
        nextKeys[out] = keys[from] as string
        nextValues[out++] = values[from] as T
      }
      for (; left < middle; left++, out++) {
        nextKeys[out] = keys[left] as string
        nextValues[out] = values[left] as T
      }
      for (; right < high; right++, out++) {
        nextKeys[out] = keys[right] as string
        nextValues[out] = values[right] as T
      }
      merged.push(high)
    }
    const sortedKeys = nextKeys
    nextKeys = keys
    keys = sortedKeys
    const sortedValues = nextValues
    nextValues = values
    values = sortedValues
    bounds = merged
  }
  return values
}

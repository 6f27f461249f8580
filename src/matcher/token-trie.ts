/** Tokens are runs of letters or of digits (tokenize.ts): the first character tells which. */
function isDigitToken(token: string): boolean {
  const code = token.charCodeAt(0)
  return code >= 48 && code <= 57
}

/**
 * How a token is looked up in a node: a digit token of up to 9 digits without a leading zero as its number (which
 * stands for that token only), any other token as itself. A map compares a small integer key in place, where a
 * string key is read from memory: in a node of 100,000 invoice numbers that read is a CPU cache miss per lookup.
 */
type Slot = string | number

function slotOf(token: string): Slot {
  const length = token.length
  if (length > 9 || (length > 1 && token.charCodeAt(0) === 48)) return token
  let value = 0
  for (let at = 0; at < length; at++) {
    const code = token.charCodeAt(at)
    if (code < 48 || code > 57) return token
    value = value * 10 + code - 48
  }
  return length > 0 ? value : token
}

/**
 * `first` is `values[0]`, kept on the node itself: a key with one value (most) is then found without reading its
 * list, which at 100,000 keys is two more CPU cache misses (the array and its elements).
 */
type TrieNode<T> = {
  children: Map<Slot, TrieNode<T>> | null
  values: T[] | null
  first: T | null
  count: number
}

/** Where a run of whole tokens named a key: token positions [start, end) and the values stored under it. */
export type TrieMatch<T> = { start: number; end: number; values: readonly T[] }

/**
 * Values stored under token sequences. Finding every key in a text walks the trie from each token, so it costs
 * O(tokens × longest key) whatever the number of keys.
 */
export class TokenTrie<T> {
  private readonly root: TrieNode<T> = { children: null, values: null, first: null, count: 0 }
  /**
   * How many values are stored under keys starting with a digit token, and with a word token. A token of a kind no
   * key starts with is never looked up in the root, which holds every key's first token (a miss in a map of
   * 100,000 keys costs more than the check).
   */
  private digitFirst = 0
  private wordFirst = 0

  /** Stores `value` under `key`; an empty key can never be named and is not stored. */
  add(key: readonly string[], value: T): void {
    if (key.length === 0) return
    if (isDigitToken(key[0] as string)) this.digitFirst++
    else this.wordFirst++
    let node = this.root
    for (const token of key) {
      node.children ??= new Map()
      const slot = slotOf(token)
      let child = node.children.get(slot)
      if (!child) {
        child = { children: null, values: null, first: null, count: 0 }
        node.children.set(slot, child)
      }
      node = child
    }
    ;(node.values ??= []).push(value)
    node.first = node.values[0] as T
    node.count = node.values.length
  }

  /** Removes the values under `key` that `matches` accepts. */
  delete(key: readonly string[], matches: (value: T) => boolean): void {
    const node = this.node(key, 0, key.length)
    if (!node?.values) return
    const kept = node.values.filter((value) => !matches(value))
    const removed = node.values.length - kept.length
    if (isDigitToken(key[0] as string)) this.digitFirst -= removed
    else this.wordFirst -= removed
    node.values = kept.length > 0 ? kept : null
    node.first = kept.length > 0 ? (kept[0] as T) : null
    node.count = kept.length
  }

  /** The values stored under exactly `key`. */
  get(key: readonly string[]): readonly T[] {
    return this.node(key, 0, key.length)?.values ?? []
  }

  /**
   * Keys found as runs of whole tokens of `tokens[from, to)`, leftmost first, longest at each position, never
   * overlapping; positions index `tokens`.
   */
  scan(tokens: readonly string[], from = 0, to = tokens.length): TrieMatch<T>[] {
    const matches: TrieMatch<T>[] = []
    const root = this.root.children
    if (!root) return matches
    const digitFirst = this.digitFirst > 0
    const wordFirst = this.wordFirst > 0
    let start = from
    while (start < to) {
      const first = tokens[start] as string
      if (!(isDigitToken(first) ? digitFirst : wordFirst)) {
        start++
        continue
      }
      let node = root.get(slotOf(first))
      let end = -1
      let found: TrieNode<T> | null = null
      for (let index = start + 1; node; index++) {
        if (node.count > 0) {
          end = index
          found = node
        }
        if (index >= to || !node.children) break
        node = node.children.get(slotOf(tokens[index] as string))
      }
      if (found) {
        matches.push({ start, end, values: found.count === 1 ? [found.first as T] : (found.values as T[]) })
        start = end
      } else {
        start++
      }
    }
    return matches
  }

  private node(key: readonly string[], from: number, to: number): TrieNode<T> | undefined {
    if (to <= from) return undefined
    let node: TrieNode<T> | undefined = this.root
    for (let index = from; index < to && node; index++)
      node = node.children?.get(slotOf(key[index] as string))
    return node
  }
}

type TrieNode<T> = { children: Map<string, TrieNode<T>> | null; values: T[] | null }

/** Where a run of whole tokens named a key: token positions [start, end) and the values stored under it. */
export type TrieMatch<T> = { start: number; end: number; values: readonly T[] }

/**
 * Values stored under token sequences. Finding every key in a text walks the trie from each token, so it costs
 * O(tokens × longest key) whatever the number of keys.
 */
export class TokenTrie<T> {
  private readonly root: TrieNode<T> = { children: null, values: null }

  /** Stores `value` under `key`; an empty key can never be named and is not stored. */
  add(key: readonly string[], value: T): void {
    if (key.length === 0) return
    let node = this.root
    for (const token of key) {
      node.children ??= new Map()
      let child = node.children.get(token)
      if (!child) {
        child = { children: null, values: null }
        node.children.set(token, child)
      }
      node = child
    }
    ;(node.values ??= []).push(value)
  }

  /** Removes the values under `key` that `matches` accepts. */
  delete(key: readonly string[], matches: (value: T) => boolean): void {
    const node = this.node(key, 0, key.length)
    if (!node?.values) return
    const kept = node.values.filter((value) => !matches(value))
    node.values = kept.length > 0 ? kept : null
  }

  /** The values stored under exactly `key`. */
  get(key: readonly string[]): readonly T[] {
    return this.node(key, 0, key.length)?.values ?? []
  }

  /** Keys found as runs of whole tokens, leftmost first, longest at each position, never overlapping. */
  scan(tokens: readonly string[]): TrieMatch<T>[] {
    const matches: TrieMatch<T>[] = []
    let start = 0
    while (start < tokens.length) {
      let node: TrieNode<T> | undefined = this.root
      let found: TrieMatch<T> | null = null
      for (let index = start; index < tokens.length && node?.children; index++) {
        node = node.children.get(tokens[index] as string)
        if (node?.values) found = { start, end: index + 1, values: node.values }
      }
      if (found) {
        matches.push(found)
        start = found.end
      } else {
        start++
      }
    }
    return matches
  }

  private node(key: readonly string[], from: number, to: number): TrieNode<T> | undefined {
    if (to <= from) return undefined
    let node: TrieNode<T> | undefined = this.root
    for (let index = from; index < to && node; index++) node = node.children?.get(key[index] as string)
    return node
  }
}

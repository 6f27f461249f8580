import { LengthCounts } from './length-counts.js'

/** Tokens are runs of letters or of digits (tokenize.ts): the first character tells which. */
function isDigitToken(token: string): boolean {
  const code = token.charCodeAt(0)
  return code >= 48 && code <= 57
}

/** A token's kind and length as one number: a key can only start with a token of the same shape. */
function shapeOf(token: string): number {
  return token.length * 2 + (isDigitToken(token) ? 1 : 0)
}

/**
 * How a token is looked up in a node: a digit token of up to 9 digits without a leading zero as its number (which
 * stands for that token only), any other token as itself. A map compares a small integer key in place, where a
 * string key is read from memory: in a node of 100,000 invoice numbers that read is a CPU cache miss per lookup.
 */
type Slot = string | number

function itself<T>(value: T): T {
  return value
}

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
 * A key that ends here with one value and no longer key through it (most invoice numbers) is stored in its parent's
 * map as the bare value, not as a node holding a list: finding it then reads the value itself and nothing else,
 * where a node and its list are three more objects, each a CPU cache miss at 100,000 keys.
 */
class TrieNode<T> {
  children: Children<T> | null = null
  values: T[] | null = null
}

/**
 * A node's children by slot: numbers in an array indexed by the number, words in a map. V8 keeps the array dense
 * when the numbers are (one load, where a map's bucket and entry are two CPU cache misses at 100,000 keys) and as a
 * dictionary when they are not.
 */
class Children<T> {
  private readonly numbers: Array<Entry<T> | undefined> = []
  private readonly words = new Map<string, Entry<T>>()

  get(slot: Slot): Entry<T> | undefined {
    return typeof slot === 'number' ? this.numbers[slot] : this.words.get(slot)
  }

  set(slot: Slot, entry: Entry<T>): void {
    if (typeof slot === 'number') this.numbers[slot] = entry
    else this.words.set(slot, entry)
  }

  delete(slot: Slot): void {
    if (typeof slot === 'number') this.numbers[slot] = undefined
    else this.words.delete(slot)
  }
}

type Entry<T> = TrieNode<T> | T

/** Where a run of whole tokens named a key: token positions [start, end) and the values stored under it. */
export type TrieMatch<T> = { start: number; end: number; values: readonly T[] }

const NO_MATCHES: readonly TrieMatch<never>[] = []

/**
 * Values stored under token sequences. Finding every key in a text walks the trie from each token, so it costs
 * O(tokens × longest key) whatever the number of keys.
 */
export class TokenTrie<T> {
  private readonly root = new TrieNode<T>()
  /**
   * How many values are stored under keys starting with a token of each shape (`shapeOf`: kind and length). A token
   * of a shape no key starts with is never looked up in the root, which holds every key's first token (a miss in a
   * map of 100,000 keys, or hashing a word, costs more than the check).
   */
  private readonly firstShapes = new LengthCounts()

  /** Stores `value` under `key`; an empty key can never be named and is not stored. */
  add(key: readonly string[], value: T): void {
    if (key.length === 0) return
    const shape = shapeOf(key[0] as string)
    this.firstShapes.add(shape, 1)
    let node = this.root
    for (let at = 0; at < key.length; at++) {
      const children = (node.children ??= new Children())
      const slot = slotOf(key[at] as string)
      const child = children.get(slot)
      if (at === key.length - 1 && child === undefined) {
        children.set(slot, value)
        return
      }
      node = child instanceof TrieNode ? child : nodeOf(children, slot, child as T)
    }
    ;(node.values ??= []).push(value)
  }

  /** Removes the values under `key` that `matches` accepts. */
  delete(key: readonly string[], matches: (value: T) => boolean): void {
    if (key.length === 0) return
    const parent = key.length === 1 ? this.root : this.node(key, 0, key.length - 1)
    const children = parent instanceof TrieNode ? parent.children : null
    const slot = slotOf(key[key.length - 1] as string)
    const entry = children?.get(slot)
    if (!children || entry === undefined) return
    const values = entry instanceof TrieNode ? (entry.values ?? []) : [entry]
    const kept = values.filter((value) => !matches(value))
    const removed = values.length - kept.length
    const shape = shapeOf(key[0] as string)
    this.firstShapes.add(shape, -removed)
    if (entry instanceof TrieNode) entry.values = kept.length > 0 ? kept : null
    else if (removed > 0) children.delete(slot)
  }

  /** The values stored under exactly `key`. */
  get(key: readonly string[]): readonly T[] {
    const entry = this.node(key, 0, key.length)
    if (entry === undefined) return []
    return entry instanceof TrieNode ? (entry.values ?? []) : [entry]
  }

  /**
   * Keys found as runs of whole tokens of `tokens[from, to)`, leftmost first, longest at each position, never
   * overlapping; positions index `tokens`.
   */
  scan(tokens: readonly string[], from = 0, to = tokens.length): readonly TrieMatch<T>[] {
    return this.scanAs(tokens, itself, from, to)
  }

  /** `scan`, each value read through `read` as it is found (no second list of matches built). */
  scanAs<U>(
    tokens: readonly string[],
    read: (value: T) => U,
    from = 0,
    to = tokens.length,
  ): readonly TrieMatch<U>[] {
    // Most texts name nothing or one key: the list is made at the first match, at its size (until then the shared
    // empty one).
    let matches: TrieMatch<U>[] | null = null
    const root = this.root.children
    if (!root) return NO_MATCHES
    const shapes = this.firstShapes
    let start = from
    while (start < to) {
      const first = tokens[start] as string
      if (!shapes.has(shapeOf(first))) {
        start++
        continue
      }
      let entry = root.get(slotOf(first))
      let end = -1
      let values: readonly T[] | null = null
      let bare: T | undefined = undefined
      for (let index = start + 1; entry !== undefined; index++) {
        if (!(entry instanceof TrieNode)) {
          end = index
          bare = entry
          values = null
          break
        }
        if (entry.values) {
          end = index
          values = entry.values
        }
        if (index >= to || !entry.children) break
        entry = entry.children.get(slotOf(tokens[index] as string))
      }
      if (end !== -1) {
        const match = { start, end, values: values === null ? [read(bare as T)] : values.map(read) }
        if (matches === null) matches = [match]
        else matches.push(match)
        start = end
      } else {
        start++
      }
    }
    return matches ?? NO_MATCHES
  }

  /** What is stored under exactly tokens [from, to) of `key`: a node, a bare value, or nothing. */
  private node(key: readonly string[], from: number, to: number): Entry<T> | undefined {
    if (to <= from) return undefined
    let entry: Entry<T> | undefined = this.root
    for (let index = from; index < to; index++) {
      // A bare value has no longer keys through it.
      if (!(entry instanceof TrieNode)) return undefined
      entry = entry.children?.get(slotOf(key[index] as string))
    }
    return entry
  }
}

/** Turns the bare value under `slot` (if any) into a node holding it, for a longer key or a second value. */
function nodeOf<T>(children: Children<T>, slot: Slot, value: T | undefined): TrieNode<T> {
  const node = new TrieNode<T>()
  if (value !== undefined) node.values = [value]
  children.set(slot, node)
  return node
}

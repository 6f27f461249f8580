import { describe, expect, it } from 'vitest'
import { TokenTrie } from './token-trie.js'

describe('TokenTrie', () => {
  const trie = new TokenTrie<string>()
  trie.add(['INV', '1'], 'inv-1')
  trie.add(['INV', '1', 'A'], 'inv-1-a')
  trie.add(['7'], 'seven')

  it('finds keys as runs of whole tokens, leftmost-longest and without overlap', () => {
    const matches = trie.scan(['X', 'INV', '1', 'A', '7', 'INV', '1'])
    expect(matches.map((match) => [match.start, match.end, match.values])).toEqual([
      [1, 4, ['inv-1-a']],
      [4, 5, ['seven']],
      [5, 7, ['inv-1']],
    ])
  })

  it('gets exact keys only', () => {
    expect(trie.get(['INV', '1'])).toEqual(['inv-1'])
    expect(trie.get(['INV'])).toEqual([])
    expect(trie.get([])).toEqual([])
  })

  it('deletes the values a predicate accepts', () => {
    const local = new TokenTrie<string>()
    local.add(['A'], 'x')
    local.add(['A'], 'y')
    local.delete(['A'], (value) => value === 'x')
    expect(local.get(['A'])).toEqual(['y'])
    local.delete(['A'], () => true)
    expect(local.scan(['A'])).toEqual([])
  })
})

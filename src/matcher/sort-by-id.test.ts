import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sortById } from './sort-by-id.js'

type Item = { id: string; at: number }

describe('sortById', () => {
  it('sorts as a stable comparator sort does, whatever runs the input has', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', 'inv_1', 'inv_10', 'inv_2', 'x'), { maxLength: 60 }),
        (ids) => {
          const items: Item[] = ids.map((id, at) => ({ id, at }))
          const expected = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          expect(sortById(items, (item) => item.id)).toEqual(expected)
        },
      ),
    )
  })

  it('merges ascending runs and leaves the input as it was', () => {
    const items = ['inv_3', 'inv_1', 'inv_1', 'inv_2', 'inv_4', 'inv_0', 'inv_5'].map((id, at) => ({
      id,
      at,
    }))
    const copy = [...items]
    expect(sortById(items, (item) => item.id).map((item) => `${item.id}@${item.at}`)).toEqual([
      'inv_0@5',
      'inv_1@1',
      'inv_1@2',
      'inv_2@3',
      'inv_3@0',
      'inv_4@4',
      'inv_5@6',
    ])
    expect(items).toEqual(copy)
    expect(sortById([], (item: Item) => item.id)).toEqual([])
  })
})

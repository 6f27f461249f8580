import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical-json.js'

describe('canonical JSON', () => {
  it('sorts keys at every level, so a JSONB round trip serialises the same', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 'x', e: null }], c: true } })).toBe(
      '{"a":{"c":true,"d":[1,{"e":null,"f":"x"}]},"b":1}',
    )
  })

  it('ignores key order at every depth', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.dictionary(fc.string(), fc.integer())), (value) => {
        const reversed = Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, Object.fromEntries(Object.entries(v).reverse())]),
        )
        expect(canonicalJson(reversed)).toBe(canonicalJson(value))
      }),
    )
  })

  it('leaves undefined members out and sorts keys by UTF-16 code units', () => {
    expect(canonicalJson({ z: undefined, é: 1, Z: 2, a: '1' })).toBe('{"Z":2,"a":"1","é":1}')
  })

  it('is JSON.stringify for any JSON value whose keys are already sorted', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown
        expect(JSON.parse(canonicalJson(parsed))).toEqual(parsed)
      }),
    )
  })
})

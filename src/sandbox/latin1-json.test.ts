import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Latin1Packer } from './latin1-json.js'

const wellFormed = (text: string) =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)

describe('Latin1Packer', () => {
  it('a packed body in Latin-1 is byte for byte the plain body in UTF-8; only a lone surrogate stops it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.constant(null))),
        (values) => {
          const packer = new Latin1Packer()
          const packed = JSON.stringify({ values: values.map(packer.text) })
          expect(packer.packed).toBe(values.every((value) => value === null || wellFormed(value)))
          if (packer.packed) {
            const plain = JSON.stringify({ values })
            expect(Buffer.from(packed, 'latin1').equals(Buffer.from(plain, 'utf8'))).toBe(true)
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('leaves ASCII strings and other values as they are', () => {
    const packer = new Latin1Packer()
    const object = { a: 1 }
    expect([packer.text('plain "ascii"'), packer.text(null), packer.text(object)]).toEqual([
      'plain "ascii"',
      null,
      object,
    ])
    expect(packer.text('••')).toBe('\u00e2\u0080\u00a2\u00e2\u0080\u00a2')
    expect(packer.packed).toBe(true)
  })
})

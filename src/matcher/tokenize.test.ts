import { describe, expect, it } from 'vitest'
import { tokenKey, tokenize } from './tokenize.js'

describe('tokenize', () => {
  it('splits letter runs from digit runs and drops separators', () => {
    expect(tokenKey('Inv-1001/a')).toEqual(['INV', '1001', 'A'])
    expect(tokenKey('INV1001')).toEqual(['INV', '1001'])
  })

  it('drops leading zeros of a digit run but keeps a lone zero', () => {
    expect(tokenKey('INV-0001001 000')).toEqual(['INV', '1001', '0'])
  })

  it('keeps where each token stands in the source text', () => {
    expect(tokenize('  inv_07')).toEqual([
      { text: 'INV', start: 2, end: 5 },
      { text: '7', start: 6, end: 8 },
    ])
  })

  it('reads cased letters beyond ASCII as letters and caseless symbols as separators', () => {
    expect(tokenKey('Rechnung Nr. Ü-12 € 5')).toEqual(['RECHNUNG', 'NR', 'Ü', '12', '5'])
  })

  it('gives nothing for a text without letters or digits', () => {
    expect(tokenize(' -- / ')).toEqual([])
  })
})

import { describe, expect, it } from 'vitest'
import { TokenList, tokenKey, tokenize } from './tokenize.js'

/** The tokens one object each, to compare. */
function listed(tokens: TokenList): Array<{ text: string; start: number; end: number }> {
  return tokens.keys.map((text, at) => ({ text, start: tokens.start(at), end: tokens.end(at) }))
}

describe('tokenize', () => {
  it('splits letter runs from digit runs and drops separators', () => {
    expect(tokenKey('Inv-1001/a')).toEqual(['INV', '1001', 'A'])
    expect(tokenKey('INV1001')).toEqual(['INV', '1001'])
  })

  it('drops leading zeros of a digit run but keeps a lone zero', () => {
    expect(tokenKey('INV-0001001 000')).toEqual(['INV', '1001', '0'])
  })

  it('keeps where each token stands in the source text', () => {
    expect(listed(tokenize('  inv_07'))).toEqual([
      { text: 'INV', start: 2, end: 5 },
      { text: '7', start: 6, end: 8 },
    ])
  })

  it('reads cased letters beyond ASCII as letters and caseless symbols as separators', () => {
    expect(tokenKey('Rechnung Nr. Ü-12 € 5')).toEqual(['RECHNUNG', 'NR', 'Ü', '12', '5'])
  })

  it('reads part of a text with positions counted in the whole text', () => {
    expect(listed(tokenize('ab INV-0012 x', 3, 11))).toEqual([
      { text: 'INV', start: 3, end: 6 },
      { text: '12', start: 7, end: 11 },
    ])
  })

  it('tells digit tokens from words', () => {
    const tokens = tokenize('Rechnung 0 ab12')
    expect(tokens.keys.map((_, at) => tokens.isDigits(at))).toEqual([false, true, false, true])
  })

  it('places every token of a code at the whole code', () => {
    expect(listed(TokenList.spanning(['INV', '1001'], 4, 16))).toEqual([
      { text: 'INV', start: 4, end: 16 },
      { text: '1001', start: 4, end: 16 },
    ])
  })

  it('gives nothing for a text without letters or digits', () => {
    expect(listed(tokenize(' -- / '))).toEqual([])
  })
})

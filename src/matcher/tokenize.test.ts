import fc from 'fast-check'
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

  it('counts exactly the tokens it reads, for any text and range (its lists are made at the counted size)', () => {
    const text = fc.string({ unit: fc.constantFrom(...'aZ09 -_/.•éÜ日ß'.split('')), maxLength: 40 })
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (source, a, b) => {
        const from = Math.min(a, b) % (source.length + 1)
        const to = from + (Math.max(a, b) % (source.length - from + 1))
        const tokens = tokenize(source, from, to)
        expect(Object.keys(tokens.keys)).toHaveLength(tokens.length)
        let end = from
        for (let at = 0; at < tokens.length; at++) {
          const run = source.slice(tokens.start(at), tokens.end(at))
          expect(tokens.start(at)).toBeGreaterThanOrEqual(end)
          expect(tokens.end(at)).toBeLessThanOrEqual(to)
          expect(tokens.key(at)).toBe(
            /^\d+$/.test(run) ? String(run.replace(/^0+(?=\d)/, '')) : run.toUpperCase(),
          )
          end = tokens.end(at)
        }
      }),
      { numRuns: 2000 },
    )
  })
})

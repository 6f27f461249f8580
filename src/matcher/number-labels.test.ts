import { describe, expect, it } from 'vitest'
import { labelBefore, listStart } from './number-labels.js'
import { tokenize } from './tokenize.js'

describe('listStart', () => {
  it('walks back over the numbers of a list to its first', () => {
    const text = 'PO 4711, 4712 und 4713'
    const tokens = tokenize(text)
    expect(listStart(text, tokens, 4)).toBe(1)
    expect(listStart(text, tokens, 2)).toBe(1)
  })

  it('stops at a word that is not “and”', () => {
    const text = 'PO 4711 Rechnung 4712'
    expect(listStart(text, tokenize(text), 3)).toBe(3)
  })
})

describe('labelBefore', () => {
  it('names the label a reference (or the list it ends) stands under', () => {
    expect(labelBefore('Ordre 4000900228', 6)).toMatchObject({ word: 'ORDRE', label: 'order' })
    expect(labelBefore('Kunden-Nr. 10234, RF35A1001', 18)).toMatchObject({ label: 'customer' })
    expect(labelBefore('Policy 99812', 7)).toMatchObject({ label: 'document' })
    expect(labelBefore('Rechnung RF35A1001', 9)).toBeNull()
  })
})

import { describe, expect, it } from 'vitest'
import { figuresOf, otherwiseLine } from '../support/corpus-figures.js'
import { evaluateRealistic, loadRealisticCorpus } from '../support/realistic-corpus.js'

/**
 * The realistic corpus (docs/matching.md, "The corpus"): bank lines in real formats against a book of ~6,000 open
 * invoices, the held-out part included. Its expectations are what is true for each case, not what the engine does:
 * a failure here is the engine's to fix, never the case's to edit.
 */
describe('the realistic matching corpus (fixtures/matching/held-out/, fixtures/matching/realistic/)', () => {
  const results = evaluateRealistic()
  const figures = figuresOf(results)

  it('holds at least 300 cases, each with a unique id and the format it imitates', () => {
    const cases = loadRealisticCorpus().flatMap((part) => part.cases)
    expect(cases.length).toBeGreaterThanOrEqual(300)
    expect(new Set(cases.map((entry) => entry.id)).size).toBe(cases.length)
    expect(cases.filter((entry) => !entry.why).map((entry) => entry.id)).toEqual([])
  })

  it('makes no wrong automatic action: no application, amount, write-off or return the case does not call for', () => {
    expect(figures.wrongPayments.map(otherwiseLine)).toEqual([])
  })

  it('applies every case that should be applied, to exactly its invoices and amounts', () => {
    expect(figures.notApplied.map(otherwiseLine)).toEqual([])
  })
})

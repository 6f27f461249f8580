import { describe, expect, it } from 'vitest'
import { evaluateCorpus, loadCorpus, runCase } from '../support/matching-corpus.js'

const corpus = loadCorpus()

describe('the remittance corpus (fixtures/matching/corpus.json)', () => {
  it('holds at least 80 realistic cases, each with an expected outcome', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(80)
    expect(new Set(corpus.cases.map((entry) => entry.id)).size).toBe(corpus.cases.length)
  })

  it.each(corpus.cases.map((entry) => [entry.id, entry.title, entry] as const))(
    '%s: %s',
    (_id, _title, entry) => {
      const result = runCase(corpus, entry)
      expect({ outcome: result.outcome, invoiceIds: [...result.invoiceIds].sort() }).toEqual({
        outcome: entry.expect.outcome,
        invoiceIds: [...entry.expect.invoiceIds].sort(),
      })
      expect(result.codes).toEqual(expect.arrayContaining(entry.expect.reasons))
      if (entry.expect.writeOffs) expect(result.writeOffs).toEqual(entry.expect.writeOffs)
      if (entry.expect.closed !== undefined) expect(result.closed).toBe(entry.expect.closed)
    },
  )

  it('makes no wrong automatic match and applies at least 95 % of the cases that should be applied', () => {
    const figures = evaluateCorpus(corpus)
    expect(figures.results.filter((result) => result.wrongAutomatic).map((result) => result.case.id)).toEqual(
      [],
    )
    expect(figures.autoApplyRate).toBeGreaterThanOrEqual(0.95)
  })
})

import { describe, expect, it } from 'vitest'
import { figuresOf, otherwiseLine } from '../support/corpus-figures.js'
import { evaluateRealistic, loadRealisticCorpus, type RealisticResult } from '../support/realistic-corpus.js'

/**
 * The realistic corpus (docs/matching.md, "The corpus"): bank lines in real formats against a book of ~6,000 open
 * invoices, the held-out part included. Its expectations are what is true for each case, not what the engine does:
 * a failure here is the engine's to fix, never the case's to edit.
 */
/**
 * What the engine still gets wrong, by case id (docs/matching.md, "The corpus"): the held-out parts' misses are
 * reported and never tuned to. The held-out part and the rest have none left since rules 12–14 and rule 6's advance
 * on a named invoice; the ones below are held-out-2's (fixtures/matching/held-out-2/BEFORE.md), the batch written
 * against those rules before the engine ran on it. `npm run eval:matching` fails on any miss; this test fails on any
 * miss not listed, and on a listed case that comes right, so the list only ever shrinks.
 */
const KNOWN = {
  /** Applied where the case says a person decides. */
  wrong: [] as string[],
  /** Should be applied, were suggested. */
  notApplied: [
    'h2-ccd-partial-single',
    'h2-mt940-auftrags-nr-stranger',
    'h2-ach-po-own-exact',
    'h2-sepa-vertrags-nr-and-invoice',
    'h2-ach-po-list-strangers',
    'h2-sepa-lieferschein-prefix',
    'h2-ach-advance-on-invoice',
    'h2-camt-acompte-amount-elsewhere',
  ] as string[],
}

const idOf = (result: RealisticResult) => result.case.id

/** The misses not on the known list, each as the eval prints it. */
function unknown(misses: readonly RealisticResult[], known: readonly string[]): string[] {
  return misses.filter((result) => !known.includes(idOf(result))).map(otherwiseLine)
}

/** Known misses that no longer miss: take them off the list. */
function cameRight(misses: readonly RealisticResult[], known: readonly string[]): string[] {
  const ids = new Set(misses.map(idOf))
  return known.filter((id) => !ids.has(id))
}

describe('the realistic matching corpus (fixtures/matching/held-out/, held-out-2/, realistic/)', () => {
  const results = evaluateRealistic()
  const figures = figuresOf(results)

  it('holds at least 300 cases, each with a unique id and the format it imitates', () => {
    const cases = loadRealisticCorpus().flatMap((part) => part.cases)
    expect(cases.length).toBeGreaterThanOrEqual(300)
    expect(new Set(cases.map((entry) => entry.id)).size).toBe(cases.length)
    expect(cases.filter((entry) => !entry.why).map((entry) => entry.id)).toEqual([])
  })

  it('makes no wrong automatic action but the known ones: no application, amount, write-off or return the case does not call for', () => {
    expect(unknown(figures.wrongPayments, KNOWN.wrong)).toEqual([])
    expect(cameRight(figures.wrongPayments, KNOWN.wrong)).toEqual([])
  })

  it('applies every case that should be applied, to exactly its invoices and amounts, but the known ones', () => {
    expect(unknown(figures.notApplied, KNOWN.notApplied)).toEqual([])
    expect(cameRight(figures.notApplied, KNOWN.notApplied)).toEqual([])
  })
})

import { describe, expect, it } from 'vitest'
import { configurationClaims } from '../support/configuration-claims.js'
import { loadCorpus } from '../support/matching-corpus.js'

describe('what the docs claim about running the corpus under another configuration', () => {
  // Three runs of ~1,100 cases against books of 6,000 and 8,000 invoices: seconds of CPU, more on a shared machine.
  it(
    'holds: residualConfig for every issue-15 case, and a higher autoApplyThreshold only holding back',
    { timeout: 300_000 },
    () => {
      const claims = configurationClaims(loadCorpus())
      expect(claims.length).toBeGreaterThanOrEqual(2)
      expect(
        claims.filter((claim) => !claim.holds).map((claim) => `${claim.claim}: ${claim.detail}`),
      ).toEqual([])
    },
  )
})

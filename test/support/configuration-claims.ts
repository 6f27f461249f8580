/**
 * What docs/matching.md and docs/closing.md claim about running the corpus under a configuration other than the
 * default, each checked: the eval fails when one does not hold.
 */
import type { MatchConfigInput } from '../../src/matcher/index.js'
import { type Corpus, evaluateCorpus, judgeCorpus } from './matching-corpus.js'
import { evaluateRealistic, type RealisticResult } from './realistic-corpus.js'

export type Claim = { claim: string; holds: boolean; detail: string }

/** Every automatic application, as `payment>invoice amount`. */
function applications(results: readonly RealisticResult[]): Set<string> {
  const made = new Set<string>()
  for (const result of results)
    for (const [invoiceId, amount] of Object.entries(result.allocations))
      made.add(`${result.paymentId}>${invoiceId} ${amount}`)
  return made
}

/** `defaults`: the realistic and issue-15 results under the default configuration, when the caller has them. */
export function configurationClaims(
  corpus: Corpus,
  defaults: readonly RealisticResult[] = [...evaluateRealistic(), ...judgeCorpus(corpus)],
): Claim[] {
  const claims: Claim[] = []
  // docs/matching.md, "The corpus": run with residualConfig for every case, 0 wrong automatic matches, all right.
  const residual: MatchConfigInput = corpus.residualConfig
  const judged = judgeCorpus(corpus, residual)
  const classic = evaluateCorpus(corpus, residual)
  const wrong = judged.filter((result) => result.wrong.length > 0)
  claims.push({
    claim:
      'issue-15 corpus with residualConfig for every case: 0 wrong automatic actions and every case right',
    holds:
      wrong.length === 0 && classic.outcomesRight === classic.cases && classic.reasonsRight === classic.cases,
    detail:
      `${wrong.length} wrong (${wrong.map((result) => result.case.id).join(', ') || 'none'}), ` +
      `outcome right ${classic.outcomesRight} of ${classic.cases}, reasons right ${classic.reasonsRight} of ${classic.cases}`,
  })
  // docs/matching.md, "Evidence": below autoApplyThreshold a match is suggested, so a higher threshold only holds
  // back: every automatic application it makes, the default makes too.
  const stricter: MatchConfigInput = { autoApplyThreshold: 95 }
  const base = applications(defaults)
  const extra = [...applications([...evaluateRealistic(stricter), ...judgeCorpus(corpus, stricter)])].filter(
    (made) => !base.has(made),
  )
  claims.push({
    claim: 'autoApplyThreshold 95: no automatic application the default (85) does not make',
    holds: extra.length === 0,
    detail: extra.length === 0 ? 'none added' : `added ${extra.join('; ')}`,
  })
  return claims
}

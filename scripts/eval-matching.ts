/**
 * `npm run eval:matching`: runs the matcher over the corpus and prints what docs/matching.md ("The corpus") quotes,
 * part by part: the frozen held-out cases (fixtures/matching/held-out/ and held-out-2/), the rest of the realistic corpus
 * (fixtures/matching/realistic/), and the issue-15 corpus (fixtures/matching/corpus.json). For each: cases, wrong
 * automatic actions by kind (applications, amounts, write-offs, returns), the auto-apply rate among the should-apply
 * cases, returns, suggestion accuracy, "nothing done", and every case that came out otherwise. Then it checks the
 * documented claims about other configurations. Exit code 1 on any wrong automatic action, any should-apply case
 * not applied, or a documented claim that does not hold.
 */
import { configurationClaims } from '../test/support/configuration-claims.js'
import { figuresOf, reportLines } from '../test/support/corpus-figures.js'
import { evaluateCorpus, judgeCorpus, loadCorpus } from '../test/support/matching-corpus.js'
import { evaluateRealistic } from '../test/support/realistic-corpus.js'

const realistic = evaluateRealistic()
const corpus = loadCorpus()
const issue15 = judgeCorpus(corpus)
const parts = [
  {
    title: 'held-out (frozen, fixtures/matching/held-out/)',
    results: realistic.filter((r) => r.part === 'held-out'),
  },
  {
    title: 'held-out-2 (frozen, fixtures/matching/held-out-2/: rules 12-14 and advances on an invoice)',
    results: realistic.filter((r) => r.part === 'held-out-2'),
  },
  {
    title: 'realistic, not held out (fixtures/matching/realistic/)',
    results: realistic.filter((r) => !r.part.startsWith('held-out')),
  },
  { title: 'realistic corpus, all (cases listed above)', results: realistic, list: false },
  { title: 'issue-15 corpus (fixtures/matching/corpus.json, 13 customers, 30 invoices)', results: issue15 },
]
let failed = false
for (const { title, results, list } of parts) {
  const figures = figuresOf(results)
  for (const line of reportLines(title, figures, list !== false)) console.log(line)
  if (figures.wrong > 0 || figures.notApplied.length > 0) failed = true
}
const classic = evaluateCorpus(corpus)
console.log(
  `issue-15 outcome right ${classic.outcomesRight} of ${classic.cases}, reasons right ${classic.reasonsRight} of ${classic.cases}`,
)
console.log('== documented claims under other configurations')
for (const claim of configurationClaims(corpus, [...realistic, ...issue15])) {
  console.log(`${claim.holds ? 'holds ' : 'FAILS '} ${claim.claim}: ${claim.detail}`)
  if (!claim.holds) failed = true
}
if (failed) process.exitCode = 1

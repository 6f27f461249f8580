/**
 * `npm run eval:matching`: runs the matcher over the remittance corpus (fixtures/matching/corpus.json) and prints
 * the figures docs/matching.md quotes: cases, wrong automatic matches, the auto-apply rate among the cases that
 * should be applied, outcomes and reasons right, per tag, and every case that came out otherwise. Exit code 1 on a
 * wrong automatic match or an auto-apply rate below 95 %.
 */
import { evaluateCorpus } from '../test/support/matching-corpus.js'

const figures = evaluateCorpus()
const percent = (part: number, whole: number) => `${((part / Math.max(1, whole)) * 100).toFixed(1)} %`
console.log(`cases                      ${figures.cases}`)
console.log(`wrong automatic matches    ${figures.wrongAutomatic}`)
console.log(
  `auto-applied (should be)   ${figures.applied} of ${figures.shouldApply} (${percent(figures.applied, figures.shouldApply)})`,
)
console.log(
  `outcome right              ${figures.outcomesRight} of ${figures.cases} (${percent(figures.outcomesRight, figures.cases)})`,
)
console.log(
  `reasons right              ${figures.reasonsRight} of ${figures.cases} (${percent(figures.reasonsRight, figures.cases)})`,
)
const tags = new Map<string, { total: number; right: number }>()
for (const result of figures.results) {
  for (const tag of result.case.tags) {
    const entry = tags.get(tag) ?? { total: 0, right: 0 }
    entry.total++
    if (result.outcomeRight && result.reasonsRight) entry.right++
    tags.set(tag, entry)
  }
}
console.log('by tag (outcome and reasons right):')
for (const [tag, { total, right }] of [...tags].sort()) console.log(`  ${tag.padEnd(18)} ${right}/${total}`)
const off = figures.results.filter((result) => !result.outcomeRight || !result.reasonsRight)
for (const result of off) {
  const expected = result.case.expect
  console.log(
    `OFF ${result.case.id}: expected ${expected.outcome} [${expected.invoiceIds.join(',')}] with ${expected.reasons.join(',')}; ` +
      `got ${result.outcome} [${result.invoiceIds.join(',')}] with ${result.codes.join(',')}`,
  )
}
if (figures.wrongAutomatic > 0 || figures.autoApplyRate < 0.95) process.exitCode = 1

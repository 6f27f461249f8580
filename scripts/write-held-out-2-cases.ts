/**
 * Wrote fixtures/matching/held-out-2/cases.json once, before the engine was run on them: a second held-out batch
 * aimed at the automatic paths of rules 12–14 and rule 6's advance on a named invoice (docs/matching.md, "Stated
 * parts"), written from the rules' description only, with ordinary lines around them. Each case is a bank line in
 * a real format against the frozen main book; its expectation is what a careful accountant would do with it, set
 * from how the case is built, never from the engine. Frozen by test/matching/held-out-frozen.test.ts; rerunning this
 * script reproduces the same JSON.
 *
 *   npx tsx scripts/write-held-out-2-cases.ts fixtures/matching/held-out-2/cases.json
 */
import { writeFileSync } from 'node:fs'
import { checkDates } from '../test/support/case-kit.js'
import { advanceCases } from './held-out-2/advances.js'
import { instalmentCases } from './held-out-2/instalments.js'
import { kit } from './held-out-2/kit.js'
import { labelCases } from './held-out-2/labels.js'
import { ordinaryCases } from './held-out-2/ordinary.js'
import { x12Cases } from './held-out-2/x12.js'

ordinaryCases()
x12Cases()
instalmentCases()
labelCases()
advanceCases()
checkDates(kit.cases, kit.book)
const out = process.argv[2]
if (!out) throw new Error('usage: write-held-out-2-cases.ts <out.json>')
writeFileSync(
  out,
  `${JSON.stringify(
    {
      description:
        'Second held-out batch of issue 25 (rules 12-14 and the advance on a named invoice, with ordinary lines), ' +
        'written in real bank formats against books/main.json before the engine was run on them and frozen ' +
        '(test/matching/held-out-frozen.test.ts). Never edit an expectation to match the engine.',
      book: 'main',
      cases: kit.cases,
    },
    null,
    1,
  )}\n`,
)

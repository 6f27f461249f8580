/**
 * Wrote fixtures/matching/held-out/cases.json once, before any rule change of issue 25: each case is a bank line in
 * a real format against the generated book (fixtures/matching/books/main.json), its expectation set from how the
 * case is built (what a careful accountant would do), never from the engine. The output is frozen
 * (test/matching/held-out-frozen.test.ts); rerunning this script reproduces the same JSON.
 *
 *   npx tsx scripts/write-held-out-cases.ts fixtures/matching/held-out/cases.json
 */
import { writeFileSync } from 'node:fs'
import { checkDates } from '../test/support/case-kit.js'
import { kit } from './held-out/kit.js'
import { ordinaryCases1 } from './held-out/ordinary-1.js'
import { ordinaryCases2 } from './held-out/ordinary-2.js'
import { hardCases1 } from './held-out/hard-1.js'
import { hardCases2 } from './held-out/hard-2.js'
import { hardCases3 } from './held-out/hard-3.js'

ordinaryCases1()
ordinaryCases2()
hardCases1()
hardCases2()
hardCases3()
checkDates(kit.cases, kit.book, ['ho-issued-after-payment'])
const out = process.argv[2]
if (!out) throw new Error('usage: write-held-out-cases.ts <out.json>')
writeFileSync(
  out,
  `${JSON.stringify(
    {
      description:
        'Held-out realistic cases of issue 25, written in real bank formats against books/main.json before any ' +
        'rule change and frozen (test/matching/held-out-frozen.test.ts). Never edit an expectation to match the engine.',
      book: 'main',
      cases: kit.cases,
    },
    null,
    1,
  )}\n`,
)

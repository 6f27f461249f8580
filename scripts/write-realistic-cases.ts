/**
 * Writes the realistic corpus beyond the held-out part (fixtures/matching/realistic/*.json) from format templates
 * against the generated book: each case's expectation follows from how it is built (the invoices it names whole at
 * their open amounts are applied; advances, payouts, unverified payers and short lists wait for a person; real
 * returns return), never from the engine. Unlike the held-out part it may be regenerated and grown.
 *
 *   npx tsx scripts/write-realistic-cases.ts fixtures/matching/realistic
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { caseKit, checkDates } from '../test/support/case-kit.js'
import { loadBook } from '../test/support/realistic-book.js'
import { formatCases } from './realistic/formats.js'
import { guardCases } from './realistic/guards.js'
import { guardTwoCases } from './realistic/guards-2.js'
import { interactionCases } from './realistic/interactions.js'
import { oddAmountCases } from './realistic/odd-amounts.js'
import { returnCases } from './realistic/returns.js'
import { statedPartCases } from './realistic/stated-parts.js'

const GROUPS = [
  { file: 'formats', seed: 101, write: formatCases, about: 'ordinary lines in real formats, each applied' },
  {
    file: 'guards',
    seed: 202,
    write: guardCases,
    about: 'lines whose evidence does not rule out the alternatives',
  },
  { file: 'returns', seed: 303, write: returnCases, about: 'returns, and outflows that are no return' },
  {
    file: 'interactions',
    seed: 404,
    write: interactionCases,
    about: 'duplicates, amended invoices, batches',
  },
  {
    file: 'odd-amounts',
    seed: 505,
    write: oddAmountCases,
    about: 'whole numbers at amounts other than what is open: test transfers, odd parts',
  },
  {
    file: 'stated-parts',
    seed: 606,
    write: statedPartCases,
    about:
      'parts stated in the text: remittance per invoice, instalments, advances on an invoice, labelled numbers',
  },
  {
    // Written against the main book only, after held-out-2 had been seen: its own file name says so.
    file: 'b3-guards-2',
    seed: 707,
    write: guardTwoCases,
    about: 'the limits of the stated-part paths, each beside a neighbour that applies',
    books: ['main'],
  },
] as const

/** The books written against: the main one (which the held-out part reads too) and a larger second one. */
const BOOKS = [
  { name: 'main', prefix: '' },
  { name: 'second', prefix: 'b2-' },
] as const

const dir = process.argv[2]
if (!dir) throw new Error('usage: write-realistic-cases.ts <dir>')
for (const { name, prefix } of BOOKS) {
  const book = loadBook(name)
  for (const group of GROUPS) {
    if ('books' in group && !(group.books as readonly string[]).includes(name)) continue
    const kit = caseKit(book, group.seed + (prefix ? 1000 : 0), prefix)
    group.write(kit)
    const later = kit.cases.filter((entry) => entry.tags.includes('dates')).map((entry) => entry.id)
    checkDates(kit.cases, book, later)
    const description = `Realistic matching cases (${group.about}), written by scripts/write-realistic-cases.ts against books/${name}.json.`
    writeFileSync(
      join(dir, `${prefix}${group.file}.json`),
      `${JSON.stringify({ description, book: name, cases: kit.cases }, null, 2)}\n`,
    )
  }
}

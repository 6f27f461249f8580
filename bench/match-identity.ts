/**
 * `npm run bench:match-identity`: what the matcher decides, as one SHA-256 per part, so a speed change can prove
 * its output identical to before (issue 29: "output identical to before on the whole corpus"). Run it on the code
 * before and after and compare the lines; `--dump DIR` also writes every result, one JSON line each, per part.
 *
 * Parts: every case of fixtures/matching/corpus.json and of the realistic corpus (held-out, held-out-2, realistic)
 * under the default configuration, `autoApplyThreshold: 95` and the corpus's `residualConfig`, the whole result of
 * each (allocations, evidence, invoice states, everything); and the benchmark's own flow (`matchOne`, as
 * bench/match.ts times it) for the first BENCH_IDENTITY_TRANSACTIONS (default 20000) transactions at 1,000,
 * 10,000 and 100,000 open invoices.
 */
import { createHash } from 'node:crypto'
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { InvoiceIndex, type MatchConfigInput } from '../src/matcher/index.js'
import { loadCorpus, matchCase } from '../test/support/matching-corpus.js'
import { loaded, loadRealisticCorpus, matchRealisticCase } from '../test/support/realistic-corpus.js'
import { customersOf, invoicesOf, matchOne, transactionPages } from './match-workload.js'

const { values } = parseArgs({ options: { dump: { type: 'string' } } })
const TRANSACTIONS = Number(process.env.BENCH_IDENTITY_TRANSACTIONS ?? 20_000)

/** JSON that keeps what plain JSON would drop or refuse: bigints, maps and sets. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'bigint') return `${item}n`
    if (item instanceof Map) return { map: [...item] }
    if (item instanceof Set) return { set: [...item] }
    return item
  })
}

function report(part: string, results: Iterable<unknown>): void {
  const hash = createHash('sha256')
  let dump: number | undefined
  if (values.dump) {
    mkdirSync(values.dump, { recursive: true })
    dump = openSync(path.join(values.dump, `${part.replace(/[^\w.-]+/g, '_')}.jsonl`), 'w')
  }
  let count = 0
  for (const result of results) {
    const line = `${canonical(result)}\n`
    hash.update(line)
    if (dump !== undefined) writeSync(dump, line)
    count++
  }
  if (dump !== undefined) closeSync(dump)
  console.log(`${part.padEnd(34)} ${String(count).padStart(6)} ${hash.digest('hex')}`)
}

const corpus = loadCorpus()
const realistic = loadRealisticCorpus()
const configs: Array<[string, MatchConfigInput]> = [
  ['default', {}],
  ['threshold-95', { autoApplyThreshold: 95 }],
  ['residual', corpus.residualConfig ?? {}],
]
for (const [name, config] of configs) {
  report(
    `corpus.json ${name}`,
    (function* () {
      for (const entry of corpus.cases) yield matchCase(corpus, entry, config)
    })(),
  )
  report(
    `realistic ${name}`,
    (function* () {
      for (const { book, cases } of realistic)
        for (const entry of cases) yield matchRealisticCase(loaded(book), entry, config)
    })(),
  )
}
for (const size of [1_000, 10_000, 100_000]) {
  const invoices = invoicesOf(size)
  const index = new InvoiceIndex(invoices, customersOf(size))
  report(
    `bench flow ${size}`,
    (function* () {
      for (const page of transactionPages(invoices, TRANSACTIONS, 500))
        for (const transaction of page) yield matchOne(index, transaction)
    })(),
  )
}

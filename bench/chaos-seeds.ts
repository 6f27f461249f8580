import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import type { ChaosProfileName } from '../test/support/chaos/chaos-profile.js'
import { formatChaosReport } from '../test/support/chaos/chaos-report.js'
import { runChaosScenario, type ChaosRunResult } from '../test/support/chaos/chaos-scenario.js'
import type { ChaosQueue } from '../test/support/chaos/cluster.js'

/**
 * `npm run chaos:seeds -- [--seeds N | --seed-list a,b,c] [--profile ci|long] [--queue redis|postgres|both]
 * [--report FILE]`: the chaos run of docs/reliability.md over many seeds, one after another (never two at once: they
 * share the machine). Each seed runs on every chosen queue before the next seed, so an interrupted series still
 * covers both queues evenly. One line per run, a summary, the report rewritten after every run (chaos-seeds.json by
 * default), exit 1 on any failure.
 */
const { values } = parseArgs({
  options: {
    seeds: { type: 'string' },
    'seed-list': { type: 'string' },
    profile: { type: 'string', default: 'ci' },
    queue: { type: 'string', default: 'both' },
    report: { type: 'string', default: 'chaos-seeds.json' },
  },
})
const profile = values.profile as ChaosProfileName
if (!['ci', 'long'].includes(profile)) usage(`--profile must be ci or long, not ${values.profile}`)
const queues: ChaosQueue[] = values.queue === 'both' ? ['redis', 'postgres'] : [values.queue as ChaosQueue]
if (!queues.every((q) => q === 'redis' || q === 'postgres')) usage('--queue must be redis, postgres or both')
const seeds = chosenSeeds()
console.log(`chaos seeds: profile ${profile}, queues ${queues.join(', ')}, seeds ${seeds.join(',')}`)

const results: ChaosRunResult[] = []
for (const seed of seeds) {
  for (const queue of queues) {
    const result = await runChaosScenario({
      queue,
      profile,
      seed,
      log: (line) => console.log(`  ${queue} ${seed} ${line}`),
    })
    results.push(result)
    const violations = result.checks.reduce((n, check) => n + check.violations.length, 0)
    console.log(
      `${queue.padEnd(8)} seed ${String(seed).padEnd(10)} ${result.ok ? 'pass' : 'FAIL'}  violations ${violations}  ${result.seconds} s${result.error ? '  (did not finish)' : ''}`,
    )
    if (!result.ok) console.log(formatChaosReport([result]))
    writeReport()
  }
}
const failed = results.filter((r) => !r.ok)
console.log(
  `\nsummary: ${results.length - failed.length}/${results.length} runs passed` +
    queues
      .map((queue) => {
        const runs = results.filter((r) => r.queue === queue)
        return `; ${queue} ${runs.filter((r) => r.ok).length}/${runs.length}`
      })
      .join('') +
    (failed.length > 0 ? `; failed: ${failed.map((r) => `${r.queue} ${r.seed}`).join(', ')}` : ''),
)
console.log(`report written to ${values.report}`)
process.exit(failed.length === 0 ? 0 : 1)

function chosenSeeds(): number[] {
  if (values['seed-list'] !== undefined) {
    const list = values['seed-list'].split(',').map((s) => s.trim())
    if (!list.every((s) => /^\d+$/.test(s))) usage('--seed-list must be whole numbers separated by commas')
    return list.map(Number)
  }
  const n = values.seeds === undefined ? 1 : Number(values.seeds)
  if (!Number.isInteger(n) || n < 1) usage('--seeds must be a positive whole number')
  return Array.from({ length: n }, () => Math.floor(Math.random() * 2 ** 31))
}

function writeReport(): void {
  const summary = results.map((r) => ({
    queue: r.queue,
    seed: r.seed,
    ok: r.ok,
    seconds: r.seconds,
    violations: r.checks.flatMap((c) => c.violations.map((v) => `${c.name}: ${v}`)),
    error: r.error,
  }))
  writeFileSync(
    values.report!,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), profile, queues, seeds, passed: results.every((r) => r.ok), summary, runs: results }, null, 2)}\n`,
  )
}

function usage(problem: string): never {
  console.error(
    `${problem}\nusage: npm run chaos:seeds -- [--seeds N | --seed-list a,b,c] [--profile ci|long] [--queue redis|postgres|both] [--report FILE]`,
  )
  process.exit(2)
}

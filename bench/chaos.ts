import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import type { ChaosProfileName } from '../test/support/chaos/chaos-profile.js'
import { formatChaosReport } from '../test/support/chaos/chaos-report.js'
import { runChaosScenario, type ChaosRunResult } from '../test/support/chaos/chaos-scenario.js'
import type { ChaosQueue } from '../test/support/chaos/cluster.js'

/**
 * `npm run chaos -- [--profile ci|long] [--queue redis|postgres|both] [--seed N] [--report FILE]`: the chaos run of
 * docs/reliability.md on loopback. Prints what was injected and checked, writes the report (chaos-report.json by
 * default) and exits 1 on any violation.
 */
const { values } = parseArgs({
  options: {
    profile: { type: 'string', default: 'ci' },
    queue: { type: 'string', default: 'both' },
    seed: { type: 'string' },
    report: { type: 'string', default: 'chaos-report.json' },
  },
})
const profile = values.profile as ChaosProfileName
if (!['ci', 'long'].includes(profile)) usage(`--profile must be ci or long, not ${values.profile}`)
const queues: ChaosQueue[] = values.queue === 'both' ? ['redis', 'postgres'] : [values.queue as ChaosQueue]
if (!queues.every((q) => q === 'redis' || q === 'postgres')) usage(`--queue must be redis, postgres or both`)
if (values.seed !== undefined && !/^\d+$/.test(values.seed)) usage('--seed must be a whole number')
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31)

const results: ChaosRunResult[] = []
for (const queue of queues) {
  console.log(`chaos: profile ${profile}, queue ${queue}, seed ${seed}`)
  const result = await runChaosScenario({ queue, profile, seed, log: (line) => console.log(`  ${line}`) })
  results.push(result)
  console.log(`\n${formatChaosReport([result])}`)
}
writeFileSync(
  values.report!,
  `${JSON.stringify({ generatedAt: new Date().toISOString(), profile, seed, passed: results.every((r) => r.ok), runs: results }, null, 2)}\n`,
)
console.log(`report written to ${values.report}`)
process.exit(results.every((r) => r.ok) ? 0 : 1)

function usage(problem: string): never {
  console.error(
    `${problem}\nusage: npm run chaos -- [--profile ci|long] [--queue redis|postgres|both] [--seed N] [--report FILE]`,
  )
  process.exit(2)
}

import { describe, expect, it } from 'vitest'
import { formatChaosReport } from '../support/chaos/chaos-report.js'
import { runChaosScenario } from '../support/chaos/chaos-scenario.js'
import { chaosSeed } from '../support/chaos/seeded-random.js'

/** Replay a failure with CHAOS_SEED=<seed>, or `npm run chaos -- --queue postgres --seed <seed>` (printed with it). */
const SEED = chaosSeed()

describe('the chaos run (CI profile) on the postgres queue', () => {
  it('keeps the mirror, invoices, alerts, app events and accepted webhooks intact through faults, kills and restarts', async () => {
    const result = await runChaosScenario({ queue: 'postgres', profile: 'ci', seed: SEED })
    const report = formatChaosReport([result])
    console.info(report)
    expect(result.error, report).toBeUndefined()
    expect(
      result.checks.filter((check) => check.violations.length > 0),
      report,
    ).toEqual([])
    expect(Number(result.injected.workerKills), report).toBeGreaterThan(0)
    expect(Number(result.injected.pgSessionsTerminated), report).toBeGreaterThan(0)
  }, 280_000)
})

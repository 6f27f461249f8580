import { describe, expect, it } from 'vitest'
import { formatChaosReport } from './chaos-report.js'
import { runChaosScenario } from './chaos-scenario.js'
import { chaosSeed } from './seeded-random.js'

/**
 * The CI-profile chaos run on one queue backend, as a test file of its own per backend so vitest runs them side by
 * side. Replay a failure with CHAOS_SEED=<seed>, or `npm run chaos -- --queue <queue> --seed <seed>` (printed with it).
 */
export function describeChaosRun(queue: 'redis' | 'postgres'): void {
  const seed = chaosSeed()
  describe(`the chaos run (CI profile) on the ${queue} queue`, () => {
    it('keeps the mirror, invoices, alerts, app events and accepted webhooks intact through faults, kills and restarts', async () => {
      // Printed first, so a run that times out can still be replayed.
      console.info(`chaos run on the ${queue} queue, seed ${seed} (replay: CHAOS_SEED=${seed})`)
      const result = await runChaosScenario({ queue, profile: 'ci', seed })
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
}

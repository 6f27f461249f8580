import type { ChaosRunResult } from './chaos-scenario.js'

/** What was injected and what was checked, as plain-text tables, one block per queue. */
export function formatChaosReport(results: readonly ChaosRunResult[]): string {
  const out: string[] = []
  for (const run of results) {
    out.push(
      `chaos run — queue ${run.queue}, profile ${run.profile}, seed ${run.seed}, ${run.seconds} s: ${run.ok ? 'PASSED' : 'FAILED'}`,
    )
    out.push(
      table(
        ['injected', 'count'],
        Object.entries(run.injected).map(([k, v]) => [k, String(v)]),
      ),
    )
    out.push(
      table(
        ['check', 'checked', 'result'],
        run.checks.map((c) => [
          c.name,
          String(c.checked),
          c.violations.length === 0 ? 'ok' : `${c.violations.length} VIOLATION(S)`,
        ]),
      ),
    )
    for (const check of run.checks.filter((c) => c.violations.length > 0)) {
      out.push(`violations of "${check.name}":`)
      for (const v of check.violations) out.push(`  - ${v}`)
    }
    out.push(`phases (s since start): ${JSON.stringify(run.phases)}`)
    if (run.error) out.push(`the run did not finish: ${run.error}`)
    out.push(`replay: npm run chaos -- --profile ${run.profile} --queue ${run.queue} --seed ${run.seed}`, '')
  }
  return out.join('\n')
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n')
}

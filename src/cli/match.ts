import { InvalidArgumentError, Option, type Command } from 'commander'
import { systemClock } from '../clock/index.js'
import { runMatching } from '../matching/index.js'
import { dryRunMatching, type DryRunReport } from '../closing/index.js'
import { matchConfigOf, openStore } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'

function threshold(value: string): number {
  const number = Number(value)
  if (!/^\d+$/.test(value) || number < 1 || number > 100)
    throw new InvalidArgumentError('must be a whole number from 1 to 100.')
  return number
}

function decimal(value: string): string {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('must be a decimal such as 2.50.')
  return value
}

export function dryRunText(report: DryRunReport): string {
  const changed = report.results.filter((result) => result.changes)
  const lines = [
    `${report.payments} unmatched payments looked at; ${changed.length} would change` +
      (changed.length > 0
        ? ` (${Object.entries(report.changes)
            .map(([outcome, count]) => `${outcome} ${count}`)
            .join(', ')})`
        : ''),
    ...changed.map(
      (result) =>
        `  ${result.transactionId} ${result.amount} ${result.currency}: ${result.now.outcome} [${result.now.invoiceIds.join(',')}]` +
        ` → ${result.proposed.outcome} [${result.proposed.invoiceIds.join(',')}]` +
        (result.proposed.confidence === null ? '' : ` (${result.proposed.confidence})`) +
        (result.proposed.reasons.length > 0 ? `\n      ${result.proposed.reasons.join('\n      ')}` : ''),
    ),
  ]
  return `${lines.join('\n')}\n`
}

/**
 * `bankrec match`: drains the matching outbox in this process. `--dry-run` instead runs the engine over the
 * current unmatched payments with the present configuration or the one the options propose, and prints what would
 * change without writing anything.
 */
export function matchCommand(io: CommandIo): Command {
  return new UsageCommand('match')
    .description(
      'Run matching now, or with --dry-run show what the engine would change for the unmatched payments',
    )
    .option('--dry-run', 'write nothing: show what would change')
    .option('--threshold <score>', 'proposed evidence score to apply from (1–100)', threshold)
    .option('--fee-tolerance <amount>', 'proposed absolute fee tolerance', decimal)
    .option('--limit <count>', 'unmatched payments to look at (default 500)', (value) => Number(value))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(
      async (options: {
        dryRun?: boolean
        threshold?: number
        feeTolerance?: string
        limit?: number
        format: 'text' | 'json'
      }) => {
        const { config, logger } = prepareCommand(io)
        const store = await openStore(config, logger)
        try {
          const present = matchConfigOf(config)
          if (!options.dryRun) {
            const summary = await runMatching({
              db: store.db,
              lockNamespace: store.schema,
              clock: systemClock,
              logger,
              config: present,
              autoApply: config.MATCH_AUTO_APPLY,
            })
            io.stdout.write(
              options.format === 'json'
                ? `${JSON.stringify(summary)}\n`
                : `matched: ${JSON.stringify(summary)}\n`,
            )
            return
          }
          const proposed = {
            ...(options.threshold === undefined ? {} : { autoApplyThreshold: options.threshold }),
            ...(options.feeTolerance === undefined ? {} : { feeToleranceAbsolute: options.feeTolerance }),
          }
          const report = await dryRunMatching(store.db, {
            config: present,
            proposed: Object.keys(proposed).length > 0 ? proposed : undefined,
            limit: options.limit,
          })
          io.stdout.write(
            options.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : dryRunText(report),
          )
        } finally {
          await store.close()
        }
      },
    )
}

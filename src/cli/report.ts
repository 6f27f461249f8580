import { InvalidArgumentError, Option, type Command } from 'commander'
import { IsoDate } from '../api-client/index.js'
import { systemClock } from '../clock/index.js'
import { csvRecord } from '../mirror-export/index.js'
import { matchReport, type MatchReport, type ReportLine } from '../closing/index.js'
import { openStore } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'

function dateOption(value: string): string {
  if (!IsoDate.safeParse(value).success) throw new InvalidArgumentError('must be a date (YYYY-MM-DD).')
  return value
}

function amounts(line: ReportLine): string {
  const entries = Object.entries(line.amounts)
  return entries.length === 0 ? '0' : entries.map(([currency, amount]) => `${amount} ${currency}`).join(', ')
}

export function reportText(report: MatchReport): string {
  const rate = report.matchRate === null ? 'n/a' : `${(report.matchRate * 100).toFixed(1)} %`
  const lines = [
    `Period: ${report.from ?? 'start'} to ${report.to ?? 'today'}`,
    `Inflows:            ${report.inflows.count}  (${amounts(report.inflows)})`,
    `Matched:            ${report.matched.count}  (${amounts(report.matched)})`,
    `Partially matched:  ${report.partiallyMatched.count}  (${amounts(report.partiallyMatched)})`,
    `Unmatched:          ${report.unmatched.count}  (${amounts(report.unmatched)})`,
    `Match rate:         ${rate}`,
    'Open receivables by days past due:',
    ...report.openReceivables.map(
      (bucket) =>
        `  ${bucket.bucket.padEnd(8)} ${String(bucket.count).padStart(6)} invoices  ${amounts(bucket)}`,
    ),
  ]
  return `${lines.join('\n')}\n`
}

/** One row per line and currency: section, bucket, currency, count, amount (the one CSV writer's quoting). */
export function reportCsv(report: MatchReport): string {
  const rows = [['section', 'bucket', 'currency', 'count', 'amount']]
  const add = (section: string, bucket: string, line: ReportLine) => {
    const entries = Object.entries(line.amounts)
    if (entries.length === 0) rows.push([section, bucket, '', String(line.count), '0'])
    for (const [currency, amount] of entries)
      rows.push([section, bucket, currency, String(line.count), amount])
  }
  add('inflows', '', report.inflows)
  add('matched', '', report.matched)
  add('partially_matched', '', report.partiallyMatched)
  add('unmatched', '', report.unmatched)
  rows.push(['match_rate', '', '', '', report.matchRate === null ? '' : String(report.matchRate)])
  for (const bucket of report.openReceivables) add('open_receivables', bucket.bucket, bucket)
  return rows.map(csvRecord).join('')
}

/** `bankrec report [--from --to] [--format text|json|csv]`: matching at a glance. */
export function reportCommand(io: CommandIo): Command {
  return new UsageCommand('report')
    .description('Inflows, matched and unmatched payments, match rate and open receivables by age')
    .option('--from <date>', 'first posted date (YYYY-MM-DD)', dateOption)
    .option('--to <date>', 'last posted date (YYYY-MM-DD)', dateOption)
    .addOption(
      new Option('--format <format>', 'output format').choices(['text', 'json', 'csv']).default('text'),
    )
    .action(async (options: { from?: string; to?: string; format: 'text' | 'json' | 'csv' }) => {
      const { config, logger } = prepareCommand(io)
      const store = await openStore(config, logger)
      try {
        const report = await matchReport(store.db, {
          from: options.from,
          to: options.to,
          asOf: systemClock.now(),
        })
        io.stdout.write(
          options.format === 'json'
            ? `${JSON.stringify(report, null, 2)}\n`
            : options.format === 'csv'
              ? reportCsv(report)
              : reportText(report),
        )
      } finally {
        await store.close()
      }
    })
}

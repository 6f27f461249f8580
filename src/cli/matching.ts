import { Argument, InvalidArgumentError, type Command } from 'commander'
import { IsoDate } from '../api-client/index.js'
import { systemClock } from '../clock/index.js'
import {
  AUTO_APPLY_MODES,
  changeAutoApplyMode,
  readAutoApplyMode,
  trustReport,
  TrustReportRequest,
  type AutoApplyMode,
  type AutoApplyState,
  type TrustReport,
} from '../matching/index.js'
import { openStore } from '../sidecar/index.js'
import { roleAllows } from '../users/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'
import { cliActor } from './users.js'

const failure = (message: string, exitCode: number) => Object.assign(new Error(message), { exitCode })

function dateOption(value: string): string {
  if (!IsoDate.safeParse(value).success) throw new InvalidArgumentError('must be a date (YYYY-MM-DD).')
  return value
}

function modeLine(state: AutoApplyState): string {
  const origin =
    state.source === 'stored'
      ? `set by ${state.changedBy} at ${state.changedAt}`
      : 'MATCH_AUTO_APPLY: nothing stored yet'
  return `automatic matching: ${state.autoApply} (${origin})\n`
}

const invoices = (list: ReadonlyArray<{ invoiceId: string; number: string | null; amount: string }>) =>
  list.length === 0
    ? 'nothing'
    : list.map((item) => `${item.number ?? item.invoiceId} ${item.amount}`).join(', ')

/** The report as a table for a terminal. */
export function trustReportText(report: TrustReport, mode: AutoApplyState): string {
  const { shadow, automatic } = report
  const decided = shadow.agreed + shadow.disagreed
  const rate =
    shadow.agreementRate === null
      ? 'n/a (nobody decided yet)'
      : `${(shadow.agreementRate * 100).toFixed(1)} % (${shadow.agreed} of ${decided} decided)`
  const lines = [
    `Trust report ${report.from} to ${report.to}; ${modeLine(mode).trim()}`,
    'Shadow mode: bank lines the engine would have settled by itself',
    `  lines                ${shadow.lines}`,
    `  people agreed        ${shadow.agreed}`,
    `  people disagreed     ${shadow.disagreed}`,
    `  nobody decided yet   ${shadow.open}`,
    `  applied later        ${shadow.appliedLater}`,
    `  agreement rate       ${rate}`,
    ...shadow.disagreements.flatMap((line) => [
      `  disagreement ${line.transactionId} ${line.amount} ${line.currency}, ${line.points} points`,
      line.engine.returnOf
        ? `    engine: return of payment ${line.engine.returnOf.inflowTransactionId}`
        : `    engine: ${invoices(line.engine.invoices)}`,
      `    people: ${line.person.decision}${line.person.actors.length > 0 ? ` (${line.person.actors.join(', ')})` : ''}; now ${invoices(line.person.now.map((item) => ({ ...item, number: null })))}`,
      ...line.engine.evidence.map((item) => `    ${String(item.points).padStart(4)}  ${item.text}`),
    ]),
    'Automation on: bank lines the engine settled by itself',
    `  lines                ${automatic.lines}`,
    `  undone by people     ${automatic.undone}`,
    `  returns              ${automatic.returns} (${automatic.returnsUndone} rejected)`,
    ...automatic.undoneLines.flatMap((line) => [
      `  undone ${line.transactionId}, ${line.engine.points} points`,
      `    engine: ${invoices(line.engine.invoices)}`,
      `    people: ${line.person.decision} (${line.person.actors.join(', ')}); now ${invoices(line.person.now.map((item) => ({ ...item, number: null })))}`,
    ]),
    ...(report.truncated ? ['(lists cut at 500 lines; the counts cover the whole period)'] : []),
  ]
  return `${lines.join('\n')}\n`
}

/**
 * `bankrec matching mode [off|shadow|on]` shows or (as an admin) sets the automatic-matching mode;
 * `bankrec matching trust-report --from --to [--json]` prints the trust report (docs/matching.md).
 * Exit 0 done, 1 refused (not an admin), 2 bad usage.
 */
export function matchingCommand(io: CommandIo): Command {
  const matching = new UsageCommand('matching').description(
    'Automatic matching: its mode (off, shadow, on) and the trust report',
  )
  matching
    .command('mode')
    .description(
      'Show the automatic-matching mode, or set it (admin): every worker follows from its next run',
    )
    .addArgument(new Argument('[mode]', 'off, shadow or on').choices(AUTO_APPLY_MODES))
    .action(async (mode: AutoApplyMode | undefined) => {
      const { config, logger } = prepareCommand(io)
      const store = await openStore(config, logger)
      try {
        if (mode === undefined) {
          io.stdout.write(modeLine(await readAutoApplyMode(store.db, config.MATCH_AUTO_APPLY)))
          return
        }
        const actor = await cliActor(config, store)
        if (!roleAllows(actor.role, 'admin'))
          throw failure(
            `changing the matching mode needs the admin role; ${actor.name} is a ${actor.role}`,
            1,
          )
        const state = await changeAutoApplyMode(store.db, {
          mode,
          actor,
          now: systemClock.now(),
          fallback: config.MATCH_AUTO_APPLY,
        })
        io.stdout.write(modeLine(state))
      } finally {
        await store.close()
      }
    })
  matching
    .command('trust-report')
    .description('What the engine would have settled (shadow) or settled (on), and how people decided')
    .requiredOption('--from <date>', 'first day (YYYY-MM-DD, UTC)', dateOption)
    .requiredOption('--to <date>', 'last day, included', dateOption)
    .option('--json', 'the API’s JSON instead of a table')
    .action(async (options: { from: string; to: string; json?: boolean }) => {
      const parsed = TrustReportRequest.safeParse({ from: options.from, to: options.to })
      if (!parsed.success) throw failure('--from must not be after --to', 2)
      const { config, logger } = prepareCommand(io)
      const store = await openStore(config, logger)
      try {
        const report = await trustReport(store.db, parsed.data)
        const mode = await readAutoApplyMode(store.db, config.MATCH_AUTO_APPLY)
        io.stdout.write(
          options.json ? `${JSON.stringify({ ...report, mode }, null, 2)}\n` : trustReportText(report, mode),
        )
      } finally {
        await store.close()
      }
    })
  return matching
}

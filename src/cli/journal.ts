import { writeFile } from 'node:fs/promises'
import { Option, type Command } from 'commander'
import { exportJournal, JOURNAL_FORMATS, JournalRequest, type JournalFormat } from '../journal/index.js'
import { DomainError } from '../errors/index.js'
import { openStore } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'

type JournalOptions = {
  from: string
  to: string
  format: JournalFormat
  output?: string
  account?: string
  currency?: string
  depositAccount?: string
  datevConsultant?: string
  datevClient?: string
  datevFiscalYearStart?: string
  datevAccount?: string[]
}

const collect = (value: string, previous: string[] = []) => [...previous, value]
const flag = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

/**
 * `bankrec journal --from --to [--format …] [--account ID] [--currency CODE] [--output FILE]`, with
 * `--deposit-account` for payment records and `--datev-*` for a DATEV batch: the ledger's entries or an import file.
 */
export function journalCommand(io: CommandIo): Command {
  return new UsageCommand('journal')
    .description(
      'The double entries of settled, written-off, reversed and disposed amounts recorded on the days asked, ' +
        'balanced per entry; qbo-csv and xero-csv are bank-line uploads, qbo-payments and xero-payments ' +
        'payment records for QuickBooks Online and Xero, datev a DATEV Buchungsstapel (one currency per file)',
    )
    .requiredOption('--from <date>', 'first day (YYYY-MM-DD, UTC)')
    .requiredOption('--to <date>', 'last day (YYYY-MM-DD, UTC), included')
    .addOption(new Option('--format <format>', 'output format').choices(JOURNAL_FORMATS).default('json'))
    .option('--account <id>', "only this bank account's entries")
    .option('--currency <code>', "only this currency's entries (required for an import file of several)")
    .option('--deposit-account <name>', 'the deposit account payment records name (default Bank)')
    .option('--datev-consultant <number>', 'DATEV Beraternummer (format datev)')
    .option('--datev-client <number>', 'DATEV Mandantennummer (format datev)')
    .option('--datev-fiscal-year-start <date>', 'first day of the fiscal year (default 1 January)')
    .option(
      '--datev-account <name=number>',
      'the DATEV account number of a ledger account (repeatable)',
      collect,
    )
    .option('--output <file>', 'write to this file instead of stdout')
    .action(async (options: JournalOptions, command: Command) => {
      const { output: _output, ...fields } = options
      const parsed = JournalRequest.safeParse(fields)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        command.error(`error: ${flag(String(issue?.path[0] ?? 'from'))} ${issue?.message ?? 'is invalid'}`, {
          exitCode: 2,
        })
      }
      const { config, logger } = prepareCommand(io)
      const store = await openStore(config, logger)
      try {
        const { body, entries } = await exportJournal(store.db, parsed.data).catch((error: unknown) => {
          // What the days asked hold can refuse a format (several currencies, an unmapped DATEV account).
          if (!(error instanceof DomainError && error.kind === 'invalid')) throw error
          return command.error(`error: ${error.message}`, { exitCode: 2 })
        })
        if (options.output) await writeFile(options.output, body)
        else io.stdout.write(body)
        io.stderr.write(`journal: ${entries} entries from ${options.from} to ${options.to}\n`)
      } finally {
        await store.close()
      }
    })
}

import { writeFile } from 'node:fs/promises'
import { Option, type Command } from 'commander'
import { exportJournal, JOURNAL_FORMATS, JournalRequest, type JournalFormat } from '../journal/index.js'
import { openStore } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'

type JournalOptions = { from: string; to: string; format: JournalFormat; output?: string }

/** `bankrec journal --from --to [--format json|csv|qbo-csv|xero-csv] [--output FILE]`: the ledger's entries. */
export function journalCommand(io: CommandIo): Command {
  return new UsageCommand('journal')
    .description(
      'The double entries of settled, written-off, reversed and disposed amounts recorded on the days asked, ' +
        'balanced per entry; qbo-csv and xero-csv are bank-line uploads for QuickBooks Online and Xero',
    )
    .requiredOption('--from <date>', 'first day (YYYY-MM-DD, UTC)')
    .requiredOption('--to <date>', 'last day (YYYY-MM-DD, UTC), included')
    .addOption(new Option('--format <format>', 'output format').choices(JOURNAL_FORMATS).default('json'))
    .option('--output <file>', 'write to this file instead of stdout')
    .action(async (options: JournalOptions, command: Command) => {
      const parsed = JournalRequest.safeParse(options)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        command.error(`error: --${String(issue?.path[0] ?? 'from')} ${issue?.message ?? 'is invalid'}`, {
          exitCode: 2,
        })
      }
      const { config, logger } = prepareCommand(io)
      const store = await openStore(config, logger)
      try {
        const { body, entries } = await exportJournal(store.db, parsed.data)
        if (options.output) await writeFile(options.output, body)
        else io.stdout.write(body)
        io.stderr.write(`journal: ${entries} entries from ${options.from} to ${options.to}\n`)
      } finally {
        await store.close()
      }
    })
}

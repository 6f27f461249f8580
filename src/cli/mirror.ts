import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { finished } from 'node:stream/promises'
import { Option, type Command } from 'commander'
import { exportMirror, type MirrorExportFormat } from '../mirror-export/index.js'
import { openStore } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'
import { connectionIdOption } from './verify.js'

type ExportOptions = { connection: string; format: MirrorExportFormat; output?: string }

/** `bankrec mirror export --connection <id> [--format jsonl|csv] [--output FILE]`: the mirror for audits. */
export function mirrorCommand(io: CommandIo): Command {
  const mirror = new UsageCommand('mirror').description('Read the mirror of the bank')
  mirror
    .command('export')
    .description(
      "Write a connection's mirrored transactions (id, accountId, postedDate, amount, currency, status, " +
        'paymentReference, description, updatedAt) as JSON lines or CSV, streamed in id order',
    )
    .requiredOption('--connection <id>', 'the connection to export', connectionIdOption)
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl', 'csv']).default('jsonl'))
    .option('--output <file>', 'write to this file instead of stdout')
    .action(async (options: ExportOptions) => {
      const { config, logger } = prepareCommand(io)
      const store = await openStore(config, logger)
      try {
        const file = options.output ? createWriteStream(options.output) : undefined
        if (file) await once(file, 'open')
        const { rows } = await exportMirror(
          store.db,
          { connectionId: options.connection, format: options.format },
          file ?? io.stdout,
        )
        if (file) await finished(file.end())
        io.stderr.write(`exported ${rows} transactions of connection ${options.connection}\n`)
      } finally {
        await store.close()
      }
    })
  return mirror
}

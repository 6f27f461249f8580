import { InvalidArgumentError, Option, type Command } from 'commander'
import { Uuid } from '../api-client/index.js'
import { streamBalanceProof, writeBalanceProofJson, writeBalanceProofText } from '../balance-proof/index.js'
import { openStore } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'

export function connectionIdOption(value: string): string {
  if (!Uuid.safeParse(value).success) throw new InvalidArgumentError('must be a connection id (a UUID).')
  return value
}

/**
 * `bankrec verify [--connection <id>] [--format text|json]`: the balance proof of the mirror. Exit code 0 when
 * every day adds up, 1 when one does not, 2 on bad usage or configuration.
 */
export function verifyCommand(io: CommandIo): Command {
  return new UsageCommand('verify')
    .description(
      "Prove per account and day that the mirrored posted transactions add up to the bank's daily balances",
    )
    .option('--connection <id>', 'only this connection', connectionIdOption)
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (options: { connection?: string; format: 'text' | 'json' }) => {
      const { config, logger } = prepareCommand(io)
      const store = await openStore(config, logger)
      try {
        const days = streamBalanceProof(store.db, { connectionId: options.connection })
        const summary =
          options.format === 'json'
            ? await writeBalanceProofJson(days, io.stdout)
            : await writeBalanceProofText(days, io.stdout)
        if (!summary.ok) {
          throw Object.assign(new Error(`${summary.problemDays} days do not add up`), { exitCode: 1 })
        }
      } finally {
        await store.close()
      }
    })
}

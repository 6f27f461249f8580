import { Command } from 'commander'
import { openStore } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'

/** `bankrec migrate`: brings the database schema to the latest version and exits. */
export function migrateCommand(io: CommandIo): Command {
  return new Command('migrate').description('Apply database migrations and exit').action(async () => {
    const { config, logger } = prepareCommand(io)
    const store = await openStore(config, logger)
    await store.close()
    io.stdout.write(`database schema ${config.BANKREC_SCHEMA} is up to date\n`)
  })
}

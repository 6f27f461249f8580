import { Command } from 'commander'
import type { CommandIo } from './io.js'
import { receiverCommand } from './receiver.js'
import { migrateCommand } from './migrate.js'
import { sandboxCommand } from './sandbox.js'
import { startCommand } from './start.js'
import { syncCommand } from './sync.js'
import { workerCommand } from './worker.js'

/** The `bankrec` command with every subcommand. */
export function buildProgram(io: CommandIo): Command {
  const program = new Command('bankrec')
    .description('Webhook receiver and reconciliation worker kit for the Bank Connectivity Service')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
  // addCommand() does not pass exitOverride and output on to a subcommand (only .command() does): copy them, or
  // a bad option of a subcommand would exit the process instead of returning an exit code.
  for (const command of [
    startCommand(io),
    receiverCommand(io),
    workerCommand(io),
    sandboxCommand(io),
    migrateCommand(io),
    syncCommand(io),
  ]) {
    program.addCommand(command.copyInheritedSettings(program))
  }
  return program
}

/** Runs the CLI; resolves to the process exit code. */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  const program = buildProgram(io)
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    const code = (error as { exitCode?: unknown }).exitCode
    if (typeof code === 'number') return code
    io.stderr.write(`bankrec: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}

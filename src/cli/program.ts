import { Command } from 'commander'
import type { CommandIo } from './io.js'
import { sandboxCommand } from './sandbox.js'

/** The `bankrec` command with every subcommand. */
export function buildProgram(io: CommandIo): Command {
  return new Command('bankrec')
    .description('Webhook receiver and reconciliation worker kit for the Bank Connectivity Service')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .addCommand(sandboxCommand(io))
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

import { readFileSync } from 'node:fs'
import { Command, CommanderError } from 'commander'
import { auditCommand } from './audit.js'
import { dispositionsCommand, exceptionsCommand, transactionsCommand } from './closing.js'
import { connectCommand } from './connect.js'
import { customersCommand } from './customers.js'
import { demoCommand } from './demo.js'
import { invoicesCommand } from './invoices.js'
import { journalCommand } from './journal.js'
import { matchCommand } from './match.js'
import { matchingCommand } from './matching.js'
import type { CommandIo } from './io.js'
import { receiverCommand } from './receiver.js'
import { reportCommand } from './report.js'
import { migrateCommand } from './migrate.js'
import { mirrorCommand } from './mirror.js'
import { sandboxCommand } from './sandbox.js'
import { startCommand } from './start.js'
import { syncCommand } from './sync.js'
import { transferCommand } from './transfer.js'
import { remittanceCommand } from './remittance.js'
import { usersCommand } from './users.js'
import { verifyCommand } from './verify.js'
import { webhooksCommand } from './webhooks.js'
import { workerCommand } from './worker.js'

/** bankrec's version, from its package.json (two folders up from src/cli/ and from dist/cli/ alike). */
export function bankrecVersion(): string {
  const file = new URL('../../package.json', import.meta.url)
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
}

/** The `bankrec` command with every subcommand. */
export function buildProgram(io: CommandIo): Command {
  const program = new Command('bankrec')
    .description('Webhook receiver and reconciliation worker kit for the Bank Connectivity Service')
    .version(bankrecVersion(), '-V, --version', 'print the version of bankrec')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
  // addCommand() does not pass exitOverride and output on to a subcommand (only .command() does): copy them, or
  // a bad option of a subcommand would exit the process instead of returning an exit code.
  for (const command of [
    startCommand(io),
    receiverCommand(io),
    workerCommand(io),
    sandboxCommand(io),
    demoCommand(io),
    migrateCommand(io),
    syncCommand(io),
    connectCommand(io),
    transferCommand(io),
    verifyCommand(io),
    mirrorCommand(io),
    webhooksCommand(io),
    reportCommand(io),
    journalCommand(io),
    auditCommand(io),
    invoicesCommand(io),
    customersCommand(io),
    usersCommand(io),
    matchCommand(io),
    dispositionsCommand(io),
    exceptionsCommand(io),
    transactionsCommand(io),
    remittanceCommand(io),
    matchingCommand(io),
  ]) {
    program.addCommand(inherit(command, program))
  }
  return program
}

/** Copies exitOverride and output to a command and, for nested commands (`webhooks register`), to theirs. */
function inherit(command: Command, parent: Command): Command {
  command.copyInheritedSettings(parent)
  for (const sub of command.commands) inherit(sub, command)
  return command
}

/** Runs the CLI; resolves to the process exit code. */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  const program = buildProgram(io)
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    // Commander reports help as exit 0 and every usage mistake as 1; scripts get 2 for those, as from getopt.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2
    io.stderr.write(`bankrec: ${error instanceof Error ? error.message : String(error)}\n`)
    const code = (error as { exitCode?: unknown }).exitCode
    return typeof code === 'number' ? code : 1
  }
}

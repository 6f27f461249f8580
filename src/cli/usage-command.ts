import { Command } from 'commander'

/**
 * A command whose usage errors (unknown option, bad choice, missing option or argument) exit with code 2, as a
 * bad configuration does, so scripts can tell bad usage from a failed check (1). Subcommands added to it get
 * the settings it inherits from the program (commander copies them one level only).
 */
export class UsageCommand extends Command {
  override error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    return super.error(message, { ...errorOptions, exitCode: 2 })
  }

  override copyInheritedSettings(source: Command): this {
    super.copyInheritedSettings(source)
    for (const command of this.commands) command.copyInheritedSettings(this)
    return this
  }

  override createCommand(name?: string): UsageCommand {
    return new UsageCommand(name)
  }
}

import { Option, type Command } from 'commander'
import type { BankrecEnv } from '../config/index.js'
import { systemClock } from '../clock/index.js'
import { createAuthenticator, openStore, type OpenStore } from '../sidecar/index.js'
import {
  builtinAdmin,
  createUsers,
  roleAllows,
  ROLES,
  UserError,
  type Actor,
  type User,
  type Users,
} from '../users/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'

const failure = (message: string, exitCode: number) => Object.assign(new Error(message), { exitCode })

/**
 * Who runs this command: the user whose token BANKREC_USER_TOKEN holds, else the built-in admin (whoever has
 * this deployment's configuration can act as it anyway).
 */
export async function cliActor(config: BankrecEnv, store: OpenStore): Promise<Actor> {
  if (!config.BANKREC_USER_TOKEN) return builtinAdmin(config.KIT_API_TOKEN_NAME)
  const actor = await createAuthenticator({
    db: store.db,
    apiToken: config.KIT_API_TOKEN ?? '',
    builtinName: config.KIT_API_TOKEN_NAME,
  }).bearer(config.BANKREC_USER_TOKEN)
  if (!actor) throw failure('BANKREC_USER_TOKEN is no active user’s token (see bankrec users list)', 2)
  return actor
}

/** Opens the store and runs one users operation as the CLI's actor, who must be an admin. */
async function asAdmin<T>(io: CommandIo, run: (users: Users, actor: Actor) => Promise<T>): Promise<T> {
  const { config, logger } = prepareCommand(io)
  const store = await openStore(config, logger)
  try {
    const actor = await cliActor(config, store)
    if (!roleAllows(actor.role, 'admin')) {
      throw failure(`managing users needs the admin role; ${actor.name} is a ${actor.role}`, 1)
    }
    const users = createUsers({ db: store.db, clock: systemClock, builtinName: config.KIT_API_TOKEN_NAME })
    return await run(users, actor)
  } catch (error) {
    if (error instanceof UserError) throw failure(error.message, error.kind === 'invalid' ? 2 : 1)
    throw error
  } finally {
    await store.close()
  }
}

function describe(user: User): string {
  const removed = user.removedAt ? `  removed ${user.removedAt} by ${user.removedBy}` : ''
  return `${user.name.padEnd(24)} ${user.role.padEnd(9)} added ${user.createdAt} by ${user.createdBy}${removed}\n`
}

const roleOption = () =>
  new Option('--role <role>', 'viewer, clerk, approver or admin').choices(ROLES).makeOptionMandatory()

/**
 * `bankrec users add|list|remove|set-role`: named API and dashboard tokens with roles (docs/users.md). Each
 * change is in the audit log under the actor running the command. Exit 0 done, 1 refused, 2 bad usage.
 */
export function usersCommand(io: CommandIo): Command {
  const users = new UsageCommand('users').description(
    'Named users of the API and dashboard, each with a token and a role (viewer, clerk, approver, admin)',
  )
  users
    .command('add')
    .description(
      'Add a user and print their token once on stdout (bankrec keeps only its SHA-256: store it now)',
    )
    .argument('<name>', 'lower-case letters, digits and . _ @ + - (an email address fits)')
    .addOption(roleOption())
    .action(async (name: string, options: { role: string }) =>
      asAdmin(io, async (list, actor) => {
        const { user, token } = await list.add({ name, role: options.role }, actor)
        io.stderr.write(
          `added ${user.name} (${user.role}); their token follows, shown this once: hand it over safely\n`,
        )
        io.stdout.write(`${token}\n`)
      }),
    )
  users
    .command('list')
    .description('List the users (name, role, who added them and when)')
    .option('--all', 'removed users too')
    .action(async (options: { all?: boolean }) =>
      asAdmin(io, async (list) => {
        const found = await list.list({ includeRemoved: options.all === true })
        if (found.length === 0) io.stdout.write('no users (KIT_API_TOKEN is the built-in admin)\n')
        for (const user of found) io.stdout.write(describe(user))
      }),
    )
  users
    .command('remove')
    .description('Remove a user: their token stops working at once, in the API and the dashboard')
    .argument('<name>')
    .action(async (name: string) =>
      asAdmin(io, async (list, actor) => {
        const user = await list.remove(name, actor)
        io.stdout.write(`removed ${user.name}: their token is revoked\n`)
      }),
    )
  users
    .command('set-role')
    .description('Change a user’s role; it applies to their next request')
    .argument('<name>')
    .argument('<role>', 'viewer, clerk, approver or admin')
    .action(async (name: string, role: string) =>
      asAdmin(io, async (list, actor) => {
        const user = await list.setRole(name, role, actor)
        io.stdout.write(`${user.name} now has the ${user.role} role\n`)
      }),
    )
  return users
}

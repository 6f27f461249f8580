import { Command, InvalidArgumentError } from 'commander'
import type { SidecarRole } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { runSidecarRoles } from './sidecar-command.js'

const ROLES: readonly SidecarRole[] = ['receiver', 'worker', 'api']

function parseRoles(value: string): SidecarRole[] {
  const roles = value.split(',').map((s) => s.trim())
  const unknown = roles.filter((r) => !ROLES.includes(r as SidecarRole))
  if (roles.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(`use a comma-separated list of ${ROLES.join(', ')}`)
  }
  return [...new Set(roles)] as SidecarRole[]
}

/** `bankrec start`: receiver, workers, HTTP API and dashboard in one process (or the roles asked for). */
export function startCommand(io: CommandIo): Command {
  return new Command('start')
    .description('Run the receiver, the workers, the HTTP API and the dashboard in one process')
    .option('--roles <roles>', `the roles to run, comma-separated: ${ROLES.join(', ')}`, parseRoles, [
      ...ROLES,
    ])
    .action((options: { roles: SidecarRole[] }) =>
      runSidecarRoles(io, options.roles, (sidecar) => {
        io.stdout.write(`bankrec listening on ${sidecar.url}\n`)
        if (sidecar.context.bank.sandbox) {
          io.stdout.write(`sandbox mode: the simulated bank runs at ${sidecar.context.bank.baseUrl}\n`)
        }
        if (options.roles.includes('api') && !sidecar.context.config.KIT_API_TOKEN)
          io.stdout.write(`API token for this run: ${sidecar.context.apiToken}\n`)
      }),
    )
}

import { Command, InvalidArgumentError } from 'commander'
import { LIVE_PACE, runDemoStory } from '../demo/index.js'
import type { Sidecar, SidecarRole } from '../sidecar/index.js'
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

type StartOptions = { roles: SidecarRole[]; demo: boolean }

/**
 * In sandbox mode with the receiver and the workers here, the demo story runs in the background: the demo entity
 * connects, the fixture invoices load and a payer pays them over time. It stops with the process; the next start
 * carries on from where it stopped.
 */
function startDemo(io: CommandIo, sidecar: Sidecar): void {
  const stop = new AbortController()
  void io.untilStopped().then(() => stop.abort())
  const say = (line: string) => io.stdout.write(`${line}\n`)
  runDemoStory(sidecar.context, { pace: LIVE_PACE, signal: stop.signal, say })
    .then((run) =>
      say(`demo: the payer is done (${run.plan.payments.length} payments); the story is in the dashboard`),
    )
    .catch((error: unknown) => {
      if (stop.signal.aborted) return
      sidecar.context.logger.error({ err: error }, 'the demo story stopped')
    })
}

/** `bankrec start`: receiver, workers, HTTP API and dashboard in one process (or the roles asked for). */
export function startCommand(io: CommandIo): Command {
  return new Command('start')
    .description('Run the receiver, the workers, the HTTP API and the dashboard in one process')
    .option('--roles <roles>', `the roles to run, comma-separated: ${ROLES.join(', ')}`, parseRoles, [
      ...ROLES,
    ])
    .option('--no-demo', 'in sandbox mode, do not run the demo story')
    .action((options: StartOptions) => {
      // The sandbox's own made-up activity would bury the demo story's payments (SANDBOX_ACTIVITY=on keeps it).
      const env = options.demo ? { ...io.env, SANDBOX_ACTIVITY: io.env.SANDBOX_ACTIVITY || 'off' } : io.env
      return runSidecarRoles({ ...io, env }, options.roles, (sidecar) => {
        const { bank, config, apiToken } = sidecar.context
        const api = options.roles.includes('api')
        if (bank.sandbox) {
          io.stdout.write(
            'bankrec is running in SANDBOX MODE (no BANK_API_URL): the bank is simulated here\n',
          )
          io.stdout.write(`  simulated bank:  ${bank.baseUrl}  (control API: ${bank.baseUrl}/_sandbox)\n`)
          if (bank.sandboxStateFile) io.stdout.write(`  bank state kept in ${bank.sandboxStateFile}\n`)
        }
        io.stdout.write(`bankrec listening on ${sidecar.url}\n`)
        if (api) {
          // A configured token is the operator's secret: never print it. Sandbox mode's generated one is shown so the
          // dashboard can be opened at all.
          if (config.KIT_API_TOKEN) {
            io.stdout.write(`  dashboard:  ${sidecar.url}/ (sign in with KIT_API_TOKEN)\n`)
          } else {
            io.stdout.write(`  dashboard:  ${sidecar.url}/#token=${apiToken}\n`)
            io.stdout.write(`  API token: ${apiToken}\n`)
          }
        }
        const demo =
          options.demo &&
          bank.sandbox &&
          options.roles.includes('receiver') &&
          options.roles.includes('worker')
        if (demo) startDemo(io, sidecar)
      })
    })
}

import { Command } from 'commander'
import type { CommandIo } from './io.js'
import { runSidecarRoles } from './sidecar-command.js'

/** `bankrec start`: receiver, workers, HTTP API and dashboard in one process. */
export function startCommand(io: CommandIo): Command {
  return new Command('start')
    .description('Run the receiver, the workers, the HTTP API and the dashboard in one process')
    .action(() =>
      runSidecarRoles(io, ['receiver', 'worker', 'api'], (sidecar) => {
        io.stdout.write(`bankrec listening on ${sidecar.url}\n`)
        if (sidecar.context.bank.sandbox) {
          io.stdout.write(`sandbox mode: the simulated bank runs at ${sidecar.context.bank.baseUrl}\n`)
        }
        if (!sidecar.context.config.KIT_API_TOKEN)
          io.stdout.write(`API token for this run: ${sidecar.context.apiToken}\n`)
      }),
    )
}

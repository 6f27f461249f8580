import { Command } from 'commander'
import type { CommandIo } from './io.js'
import { runSidecarRoles } from './sidecar-command.js'

/** `bankrec worker`: only the workers; run as many as wanted on as many machines, sharing the database and queue. */
export function workerCommand(io: CommandIo): Command {
  return new Command('worker')
    .description('Run the workers only (webhook events, connection syncs); scale out with more processes')
    .action(() =>
      runSidecarRoles(io, ['worker'], (sidecar) => {
        io.stdout.write(`bankrec worker running; health on ${sidecar.url}/healthz\n`)
      }),
    )
}

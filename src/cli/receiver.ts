import { Command } from 'commander'
import type { CommandIo } from './io.js'
import { runSidecarRoles } from './sidecar-command.js'

/** `bankrec receiver`: only the webhook receiver; the workers run elsewhere on the same queue and database. */
export function receiverCommand(io: CommandIo): Command {
  return new Command('receiver')
    .description(
      'Run the webhook receiver only: POST /webhooks, GET /healthz, /readyz, /metrics. Events go to the queue ' +
        '(Redis with REDIS_URL, else PostgreSQL) for `bankrec worker` processes',
    )
    .action(() =>
      runSidecarRoles(io, ['receiver'], (sidecar) => {
        io.stdout.write(`bankrec receiver listening on ${sidecar.url}/webhooks\n`)
      }),
    )
}

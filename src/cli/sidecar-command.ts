import { ConfigError, loadConfig, type BankrecEnv } from '../config/index.js'
import { createLogger, type Logger } from '../observability/index.js'
import { startSidecar, type Sidecar, type SidecarRole } from '../sidecar/index.js'
import type { CommandIo } from './io.js'

/** Loads the configuration and a logger for a command; a bad configuration lists every problem and exits 2. */
export function prepareCommand(io: CommandIo): { config: BankrecEnv; logger: Logger } {
  try {
    const config = loadConfig(io.env)
    return {
      config,
      logger: createLogger({ level: config.LOG_LEVEL, destination: io.stderr, pretty: io.isTerminal }),
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr.write(`${error.message}\n`)
      throw Object.assign(new Error('invalid configuration'), { exitCode: 2 })
    }
    throw error
  }
}

/** What the roles asked for need beyond what the schema checks: the HTTP API against a real bank needs its token. */
export function roleProblems(config: BankrecEnv, roles: readonly SidecarRole[]): string[] {
  return config.BANK_API_URL && !config.KIT_API_TOKEN && roles.includes('api')
    ? [
        'KIT_API_TOKEN is required to serve the HTTP API and dashboard against a real bank (BANK_API_URL is set); ' +
          'set it to a secret of at least 16 characters, or run only other roles (--roles receiver,worker)',
      ]
    : []
}

/** Runs sidecar roles until SIGINT/SIGTERM, then stops them cleanly (in-flight jobs finish, batches are written). */
export async function runSidecarRoles(
  io: CommandIo,
  roles: SidecarRole[],
  announce: (sidecar: Sidecar) => void,
): Promise<void> {
  const { config, logger } = prepareCommand(io)
  // Checked before anything starts (no PostgreSQL, no bank): a configuration mistake is exit 2, like the schema's.
  const problems = roleProblems(config, roles)
  if (problems.length > 0) {
    io.stderr.write(`${new ConfigError(problems).message}\n`)
    throw Object.assign(new Error('invalid configuration'), { exitCode: 2 })
  }
  const sidecar = await startSidecar({ config, roles: new Set(roles), logger })
  // Listening for the stop signal before announcing: whoever reads the announcement may signal at once.
  const stopped = io.untilStopped()
  announce(sidecar)
  await stopped
  logger.info('stopping')
  // A client closing under a stop may still reject (a connection the server closed first); the stop goes on and
  // the process exits 0 instead of dying half-way with the embedded PostgreSQL left running.
  const onRejection = (reason: unknown) => logger.warn({ err: reason }, 'ignored an error while stopping')
  process.on('unhandledRejection', onRejection)
  try {
    await sidecar.close()
  } finally {
    process.off('unhandledRejection', onRejection)
  }
}

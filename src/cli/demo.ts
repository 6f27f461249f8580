import { randomBytes } from 'node:crypto'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Command, InvalidArgumentError } from 'commander'
import { sql } from 'kysely'
import {
  DEFAULT_DEMO_SEED,
  formatDemoSummary,
  readDemoSummary,
  runDemoStory,
  waitUntilMirrored,
  waitUntilReconciled,
} from '../demo/index.js'
import { createLogger } from '../observability/index.js'
import { startSidecar } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'

function wholeNumber(value: string): number {
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number')
  return n
}

type DemoOptions = { seed: number; timeout: number; quiet: boolean }

/**
 * Where the demo keeps its data, and how to clean up after it: an embedded PostgreSQL in a temporary directory,
 * or with DATABASE_URL a schema of its own (unless BANKREC_SCHEMA names one), so it never writes into bankrec's
 * real tables or queues.
 */
async function demoEnvironment(
  env: NodeJS.ProcessEnv,
): Promise<{ env: NodeJS.ProcessEnv; cleanUp(): Promise<void> }> {
  const suffix = randomBytes(4).toString('hex')
  const demo: NodeJS.ProcessEnv = {
    ...env,
    SANDBOX_ACTIVITY: env.SANDBOX_ACTIVITY || 'off',
    PORT: env.PORT || '0',
    QUEUE_PREFIX: env.QUEUE_PREFIX || `bankrec-demo-${suffix}`,
  }
  if (!env.DATABASE_URL) {
    const directory = await mkdtemp(path.join(tmpdir(), 'bankrec-demo-'))
    // As root the embedded PostgreSQL runs as the postgres user, which must be able to enter the directory.
    await chmod(directory, 0o755)
    demo.BANKREC_DATA_DIR = path.join(directory, 'data')
    return { env: demo, cleanUp: () => rm(directory, { recursive: true, force: true }) }
  }
  if (env.BANKREC_SCHEMA) return { env: demo, cleanUp: async () => undefined }
  const schema = `bankrec_demo_${suffix}`
  demo.BANKREC_SCHEMA = schema
  // A schema of its own, dropped after this one process: a key of its own too, unless one is configured.
  demo.BANKREC_SECRET_KEY = env.BANKREC_SECRET_KEY || randomBytes(32).toString('base64')
  return {
    env: demo,
    async cleanUp() {
      const { createDatabase } = await import('../store/index.js')
      const store = createDatabase({ connectionString: env.DATABASE_URL!, schema })
      try {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db)
        await sql`drop schema if exists ${sql.id(`${schema}_queue`)} cascade`.execute(store.db)
      } finally {
        await store.db.destroy()
      }
    },
  }
}

/** `bankrec demo`: the demo story to the end in one process, then a reconciliation summary. */
export function demoCommand(io: CommandIo): Command {
  return new Command('demo')
    .description(
      'Run the demo story to the end in one process (sandbox bank, embedded PostgreSQL unless DATABASE_URL is set) ' +
        'and print a reconciliation summary; exits 1 if it is not reconciled by the deadline',
    )
    .option('--seed <seed>', 'seed of the story (same seed, same story)', wholeNumber, DEFAULT_DEMO_SEED)
    .option('--timeout <seconds>', 'deadline for the whole run', wholeNumber, 60)
    .option('--quiet', 'print only the summary', false)
    .action(async (options: DemoOptions) => {
      const started = performance.now()
      const deadline = Date.now() + options.timeout * 1000
      if (io.env.BANK_API_URL) {
        throw Object.assign(
          new Error('bankrec demo runs against the sandbox in this process; unset BANK_API_URL'),
          {
            exitCode: 2,
          },
        )
      }
      const say = (line: string) => {
        if (!options.quiet) io.stdout.write(`${line}\n`)
      }
      const setup = await demoEnvironment(io.env)
      try {
        const { config } = prepareCommand({ ...io, env: setup.env })
        const logger = createLogger({
          level: io.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn',
          destination: io.stderr,
          pretty: io.isTerminal,
        })
        say('bankrec demo: sandbox mode, the simulated bank runs in this process')
        const sidecar = await startSidecar({
          config,
          roles: new Set(['receiver', 'worker', 'api']),
          logger,
          sandboxPort: 0,
        })
        try {
          const db = sidecar.context.store.db
          const run = await runDemoStory(sidecar.context, {
            seed: options.seed,
            say,
            pace: {
              kind: 'fast',
              beforeSettling: async (ids) => {
                await waitUntilMirrored(db, ids, { deadline })
              },
            },
          })
          say(`demo: ${run.plan.payments.length} payments made; waiting until every one is reconciled`)
          const missing = await waitUntilReconciled(db, run, { deadline })
          const summary = await readDemoSummary(db, sidecar.context.clock.now())
          io.stdout.write(formatDemoSummary(summary, (performance.now() - started) / 1000))
          if (missing.length > 0) {
            const lines = missing.map(({ payment, reason }) => `  ${payment.key} ${payment.label}: ${reason}`)
            throw Object.assign(
              new Error(
                `the demo story did not complete within ${options.timeout} s; not reconciled:\n${lines.join('\n')}`,
              ),
              { exitCode: 1 },
            )
          }
        } finally {
          await sidecar.close()
        }
      } finally {
        await setup.cleanUp()
      }
    })
}

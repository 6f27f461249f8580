import { Command, InvalidArgumentError } from 'commander'
import { explainListenError } from '../http-listener/index.js'
import { SANDBOX_DIALECTS, createSandbox, isSandboxDialect, type SandboxDialect } from '../sandbox/index.js'
import type { CommandIo } from './io.js'

function port(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('must be a port number 0–65535')
  return n
}

function seed(value: string): number {
  const n = Number(value)
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('must be a whole number')
  return n
}

function dialect(value: string): SandboxDialect {
  if (!isSandboxDialect(value))
    throw new InvalidArgumentError(`must be one of ${SANDBOX_DIALECTS.join(', ')}`)
  return value
}

/** `bankrec sandbox`'s port; `npm start`'s built-in bank defaults to another (BUILT_IN_BANK_PORT), so both can run. */
export const SANDBOX_COMMAND_PORT = 4010

/** `bankrec sandbox`: the simulated Bank Connectivity Service on localhost. */
export function sandboxCommand(io: CommandIo): Command {
  return new Command('sandbox')
    .description('Run the Bank Connectivity Service sandbox (a faithful local simulator)')
    .option('--port <port>', 'port to listen on', port, SANDBOX_COMMAND_PORT)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--seed <seed>', 'seed of the generated data', seed, 42)
    .option('--api-key <key>', 'full-scope test API key to accept')
    .option('--allow-http-webhooks', 'accept http:// webhook URLs on loopback (tests and demos)', false)
    .option(
      '--dialect <name>',
      `wire dialect of sync events and webhooks: ${SANDBOX_DIALECTS.join(', ')}`,
      dialect,
      'seed' as SandboxDialect,
    )
    .action(
      async (options: {
        port: number
        host: string
        seed: number
        apiKey?: string
        allowHttpWebhooks: boolean
        dialect: SandboxDialect
      }) => {
        const sandbox = createSandbox({
          seed: options.seed,
          apiKey: options.apiKey,
          allowHttpWebhooks: options.allowHttpWebhooks,
          dialect: options.dialect,
        })
        const url = await sandbox
          .listen({ port: options.port, host: options.host })
          .catch(async (error: unknown) => {
            await sandbox.close()
            throw explainListenError(error, { port: options.port, host: options.host, setting: '--port' })
          })
        io.stdout.write(`sandbox listening on ${url}\n`)
        if (options.dialect !== 'seed') io.stdout.write(`dialect: ${options.dialect}\n`)
        io.stdout.write('API keys:\n')
        for (const key of sandbox.apiKeys()) {
          const expiry = key.expiresAt ? ` expires ${key.expiresAt.toISOString()}` : ''
          io.stdout.write(`  ${key.key}  ${key.label} (${key.orgId}, ${key.environment}${expiry})\n`)
        }
        io.stdout.write(`control API: ${url}/_sandbox (see docs/sandbox.md)\n`)
        await io.untilStopped()
        await sandbox.close()
      },
    )
}

import path from 'node:path'
import { createBankClient, type BankClient, type HttpClientOptions } from '../api-client/index.js'
import type { BankrecEnv } from '../config/index.js'
import type { Logger } from '../observability/index.js'
import { createSandbox, type Sandbox } from '../sandbox/index.js'

export type OpenBank = {
  client: BankClient
  baseUrl: string
  /** Set in sandbox mode (no BANK_API_URL): the simulated bank runs in this process. */
  sandbox?: Sandbox
  /** In sandbox mode, the file that keeps the simulated bank across restarts (none: it starts afresh each run). */
  sandboxStateFile?: string
  close(): Promise<void>
}

export type OpenBankOptions = {
  /** Port of the in-process sandbox in sandbox mode. @defaultValue BUILT_IN_BANK_PORT, or any free port if taken */
  sandboxPort?: number
  /** Where the default data directory (.bankrec) is. @defaultValue process.cwd() */
  cwd?: string
  /** After every attempt of a bank API call (latency and error metrics). */
  onAttemptEnd?: HttpClientOptions['onAttemptEnd']
}

export const SANDBOX_STATE_FILE = 'sandbox-state.json'

/** Sandbox mode's in-process bank: not `bankrec sandbox`'s 4010, so a standalone sandbox can run beside it. */
export const BUILT_IN_BANK_PORT = 4011

/**
 * Where sandbox mode keeps the simulated bank: beside the data it belongs with. With the embedded PostgreSQL
 * (no DATABASE_URL) that is `${BANKREC_DATA_DIR or .bankrec}/sandbox-state.json`; with DATABASE_URL only when
 * BANKREC_DATA_DIR names a directory for it, since one file cannot follow every schema of a shared database.
 */
export function sandboxStateFile(config: BankrecEnv, cwd = process.cwd()): string | undefined {
  if (config.BANKREC_DATA_DIR) return path.resolve(cwd, config.BANKREC_DATA_DIR, SANDBOX_STATE_FILE)
  if (config.DATABASE_URL) return undefined
  return path.join(cwd, '.bankrec', SANDBOX_STATE_FILE)
}

/** The bank: BANK_API_URL with BANK_API_KEY, or the sandbox in-process when BANK_API_URL is unset. */
export async function openBank(
  config: BankrecEnv,
  logger: Logger,
  options: OpenBankOptions = {},
): Promise<OpenBank> {
  if (config.BANK_API_URL) {
    const client = createBankClient({
      baseUrl: config.BANK_API_URL,
      apiKey: config.BANK_API_KEY!,
      onAttemptEnd: options.onAttemptEnd,
    })
    return { client, baseUrl: config.BANK_API_URL, close: async () => undefined }
  }
  const stateFile = sandboxStateFile(config, options.cwd)
  const sandbox = createSandbox({
    allowHttpWebhooks: true,
    apiKey: config.BANK_API_KEY,
    generatedActivity: config.SANDBOX_ACTIVITY === 'on',
    stateFile,
  })
  let baseUrl: string
  const port = options.sandboxPort ?? BUILT_IN_BANK_PORT
  try {
    baseUrl = await sandbox.listen({ port, host: '127.0.0.1' })
  } catch {
    baseUrl = await sandbox.listen({ port: 0, host: '127.0.0.1' })
    logger.info({ port, url: baseUrl }, 'the simulated bank took another port: its usual one is in use')
  }
  logger.info(
    { url: baseUrl, stateFile: stateFile ?? null },
    'sandbox mode: no BANK_API_URL, the simulated bank runs in this process',
  )
  const client = createBankClient({
    baseUrl,
    apiKey: sandbox.apiKey,
    allowHttpLoopbackWebhooks: true,
    onAttemptEnd: options.onAttemptEnd,
  })
  return { client, baseUrl, sandbox, sandboxStateFile: stateFile, close: () => sandbox.close() }
}

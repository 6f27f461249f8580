import { createBankClient, type BankClient } from '../api-client/index.js'
import type { BankrecEnv } from '../config/index.js'
import type { Logger } from '../observability/index.js'
import { createSandbox, type Sandbox } from '../sandbox/index.js'

export type OpenBank = {
  client: BankClient
  baseUrl: string
  /** Set in sandbox mode (no BANK_API_URL): the simulated bank runs in this process. */
  sandbox?: Sandbox
  close(): Promise<void>
}

export type OpenBankOptions = {
  /** Port of the in-process sandbox in sandbox mode. @defaultValue 4010, or any free port if taken */
  sandboxPort?: number
}

/** The bank: BANK_API_URL with BANK_API_KEY, or the sandbox in-process when BANK_API_URL is unset. */
export async function openBank(
  config: BankrecEnv,
  logger: Logger,
  options: OpenBankOptions = {},
): Promise<OpenBank> {
  if (config.BANK_API_URL) {
    const client = createBankClient({ baseUrl: config.BANK_API_URL, apiKey: config.BANK_API_KEY! })
    return { client, baseUrl: config.BANK_API_URL, close: async () => undefined }
  }
  const sandbox = createSandbox({ allowHttpWebhooks: true, apiKey: config.BANK_API_KEY })
  let baseUrl: string
  try {
    baseUrl = await sandbox.listen({ port: options.sandboxPort ?? 4010, host: '127.0.0.1' })
  } catch {
    baseUrl = await sandbox.listen({ port: 0, host: '127.0.0.1' })
  }
  logger.info({ url: baseUrl }, 'sandbox mode: no BANK_API_URL, the simulated bank runs in this process')
  const client = createBankClient({ baseUrl, apiKey: sandbox.apiKey, allowHttpLoopbackWebhooks: true })
  return { client, baseUrl, sandbox, close: () => sandbox.close() }
}

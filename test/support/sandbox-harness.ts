import { randomUUID } from 'node:crypto'
import { createVirtualClock } from '../../src/clock/index.js'
import { CONTROL_HEADER, createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js'

export type SandboxHarness = {
  sandbox: Sandbox
  url: string
  apiKey: string
  /** A key by its seeded label: 'full access', 'read only', 'expired', 'other organization'. */
  keyFor(label: string): string
  /** A JSON request to the sandbox; `key: null` sends no Authorization header; /_sandbox calls carry Sandbox-Control. */
  request(
    method: string,
    path: string,
    options?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>
  close(): Promise<void>
}

/** Starts a sandbox on an ephemeral loopback port with a frozen virtual clock (tests advance it). */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHarness> {
  const sandbox = createSandbox({
    clock: createVirtualClock({ start: new Date('2026-03-02T09:00:00Z'), followRealTime: false }),
    allowHttpWebhooks: true,
    ...options,
  })
  const url = await sandbox.listen({ port: 0, host: '127.0.0.1' })
  const harness: SandboxHarness = {
    sandbox,
    url,
    apiKey: sandbox.apiKey,
    keyFor(label) {
      const record = sandbox.apiKeys().find((k) => k.label === label)
      if (!record) throw new Error(`no seeded key labelled ${label}`)
      return record.key
    },
    async request(method, path, { body, key = sandbox.apiKey, headers = {} } = {}) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(key === null ? {} : { authorization: `Bearer ${key}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          // A script driving the control API says so, as docs/sandbox.md asks.
          ...(path.startsWith('/_sandbox') ? { [CONTROL_HEADER]: 'test' } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      })
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = text ? JSON.parse(text) : undefined
      } catch {
        // Not JSON: tests see the raw text.
      }
      return { status: response.status, body: parsed, headers: response.headers }
    },
    close: () => sandbox.close(),
  }
  return harness
}

/**
 * Onboards a bank through the public setup flow (create → credentials → setupCompletion → activation) and
 * returns the ready connection with its accounts.
 */
export async function connectReadyBank(
  harness: SandboxHarness,
  options: { entityId?: string; institutionId?: string; portalUrl?: string; key?: string } = {},
): Promise<{ connection: any; accounts: any[] }> {
  const key = options.key ?? harness.apiKey
  const created = await harness.request('POST', '/v1/connections', {
    key,
    body: {
      entityId: options.entityId ?? randomUUID(),
      ...(options.portalUrl
        ? { portalUrl: options.portalUrl }
        : { institutionId: options.institutionId ?? 'ins_harbor_national' }),
    },
  })
  if (created.status >= 300) throw new Error(`create connection failed: ${JSON.stringify(created.body)}`)
  const id = created.body.id as string
  if (created.body.kind === 'setup') {
    const credentials = await harness.request('PUT', `/v1/connections/${id}/credentials`, {
      key,
      body: { bankUsername: 'delegate', password: 'correct horse battery staple' },
    })
    if (credentials.status >= 300) throw new Error(`credentials failed: ${JSON.stringify(credentials.body)}`)
    const completion = await harness.request('PUT', `/v1/connections/${id}/setupCompletion`, { key })
    if (completion.status >= 300)
      throw new Error(`setupCompletion failed: ${JSON.stringify(completion.body)}`)
    await harness.sandbox.advance(
      harness.sandbox.ctx.settings.activationSeconds + harness.sandbox.ctx.settings.syncDurationSeconds,
    )
  }
  const connection = await harness.request('GET', `/v1/connections/${id}`, { key })
  if (connection.body.kind !== 'ready')
    throw new Error(`connection ${id} did not become ready: ${JSON.stringify(connection.body)}`)
  const accounts = await harness.request('GET', `/v1/accounts?connectionId=${id}`, { key })
  return { connection: connection.body, accounts: accounts.body.data }
}

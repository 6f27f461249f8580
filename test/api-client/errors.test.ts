import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { inspect } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  BankApiError,
  BankAuthenticationError,
  BankConflictError,
  BankConnectionError,
  BankCursorExpiredError,
  BankInvalidCursorError,
  BankNotFoundError,
  BankPermissionError,
  BankRateLimitError,
  BankServerError,
  BankTimeoutError,
  BankValidationError,
  ResponseValidationError,
  ValidationError,
  createBankClient,
  type TransferCreateParams,
} from '../../src/api-client/index.js'
import { connectReadyBank } from '../support/sandbox-harness.js'
import {
  connectTransferPair,
  startClientHarness,
  type ClientHarness,
  type TransferPair,
} from './client-harness.js'

let h: ClientHarness
let ready: TransferPair

beforeAll(async () => {
  h = await startClientHarness()
  ready = await connectTransferPair(h.harness)
})
afterAll(() => h.close())
afterEach(async () => {
  await h.harness.request('PUT', '/_sandbox/faults', { body: {} })
})

async function caught(promise: Promise<unknown>): Promise<BankApiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof BankApiError) return error
    throw error
  }
  throw new Error('expected the call to fail')
}

const transferBody = (overrides: Partial<TransferCreateParams> = {}): TransferCreateParams => ({
  type: 'internal',
  transferType: 'internal',
  amount: { type: 'money', value: '5.00', currency: ready.source.currency },
  sourceAccountId: ready.source.id,
  destination: { type: 'account', accountId: ready.destination.id },
  clientReference: 'INV-1001',
  skipPreflight: true,
  ...overrides,
})

/** Proves the key is nowhere a log or a bug report could pick it up. */
function expectNoKey(error: unknown, key: string) {
  expect(JSON.stringify(error)).not.toContain(key)
  expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(key)
  expect((error as Error).message).not.toContain(key)
  expect(String((error as Error).stack)).not.toContain(key)
}

describe('authentication and permission', () => {
  it('throws BankAuthenticationError for an unknown key, without the key anywhere in the error', async () => {
    const wrongKey = `sk_test_${randomUUID()}`
    const error = await caught(h.clientWith({ apiKey: wrongKey }).institutions.list())
    expect(error).toBeInstanceOf(BankAuthenticationError)
    expect(error).toMatchObject({
      status: 401,
      code: 'invalid_api_key',
      requestId: expect.stringMatching(/^req_/),
    })
    expectNoKey(error, wrongKey)
  })

  it('throws BankAuthenticationError with code api_key_expired for an expired key', async () => {
    const error = await caught(h.clientWith({ apiKey: h.harness.keyFor('expired') }).institutions.list())
    expect(error).toBeInstanceOf(BankAuthenticationError)
    expect(error.code).toBe('api_key_expired')
  })

  it('throws BankPermissionError when the key lacks the scope', async () => {
    const readOnly = h.clientWith({ apiKey: h.harness.keyFor('read only') })
    const error = await caught(readOnly.transfers.create(transferBody()))
    expect(error).toBeInstanceOf(BankPermissionError)
    expect(error).toMatchObject({ status: 403, code: 'insufficient_scope' })
  })

  it('redacts the key when the server echoes it in an error message', async () => {
    const echoing: typeof fetch = async (input, init) => {
      const auth = new Headers(init?.headers).get('authorization')
      return new Response(
        JSON.stringify({ error: { code: 'invalid_api_key', message: `Rejected ${auth}` } }),
        {
          status: 401,
          headers: { 'content-type': 'application/json' },
        },
      )
    }
    const error = await caught(h.clientWith({ fetch: echoing }).institutions.list())
    expect(error.message).toBe('Rejected Bearer [redacted]')
    expectNoKey(error, h.harness.apiKey)
  })
})

describe('not found', () => {
  it('throws BankNotFoundError with the request id for a missing transfer', async () => {
    const error = await caught(h.client.transfers.get(randomUUID()))
    expect(error).toBeInstanceOf(BankNotFoundError)
    expect(error).toMatchObject({ status: 404, code: 'not_found', requestId: expect.stringMatching(/^req_/) })
  })
})

describe('conflicts carry the seed reason', () => {
  it('connection_in_setup: sync requested while the connection is still in setup', async () => {
    const setup = await h.client.connections.create({
      entityId: randomUUID(),
      portalUrl: 'https://portal.not-in-catalog.test/',
    })
    const error = await caught(h.client.connections.requestSync(setup.id))
    expect(error).toBeInstanceOf(BankConflictError)
    expect((error as BankConflictError).reason).toBe('connection_in_setup')
  })

  it('sync_in_progress: sync requested while one runs', async () => {
    const { connection } = await connectReadyBank(h.harness)
    await h.harness.sandbox.advance(h.harness.sandbox.ctx.settings.syncCooldownSeconds + 1)
    await h.client.connections.requestSync(connection.id)
    const error = await caught(h.client.connections.requestSync(connection.id))
    expect(error).toBeInstanceOf(BankConflictError)
    expect((error as BankConflictError).reason).toBe('sync_in_progress')
  })

  it('delete_conflict: delete while the connection is being activated', async () => {
    const setup = await h.client.connections.create({
      entityId: randomUUID(),
      portalUrl: 'https://portal.activating.test/',
    })
    await h.client.connections.submitCredentials(setup.id, {
      bankUsername: 'delegate',
      password: 'pw-123456',
    })
    await h.client.connections.completeSetup(setup.id)
    const error = await caught(h.client.connections.delete(setup.id))
    expect(error).toBeInstanceOf(BankConflictError)
    expect((error as BankConflictError).reason).toBe('delete_conflict')
  })

  it('idempotency_key_reused: the same Idempotency-Key with a different payload', async () => {
    const idempotencyKey = `order-${randomUUID()}`
    await h.client.transfers.create(transferBody(), { idempotencyKey })
    const error = await caught(
      h.client.transfers.create(transferBody({ clientReference: 'INV-OTHER' }), { idempotencyKey }),
    )
    expect(error).toBeInstanceOf(BankConflictError)
    expect(error.status).toBe(409)
    expect((error as BankConflictError).reason).toBe('idempotency_key_reused')
  })
})

describe('rate limits', () => {
  it('surfaces the 45-minute sync cooldown at once with retryAfterMs, without sleeping or retrying', async () => {
    const { connection } = await connectReadyBank(h.harness)
    const before = h.requests.length
    const sleepsBefore = h.sleeps.length
    const error = await caught(h.client.connections.requestSync(connection.id))
    expect(error).toBeInstanceOf(BankRateLimitError)
    expect(error.code).toBe('sync_cooldown')
    expect(error.retryAfterMs).toBeGreaterThan(40 * 60_000)
    expect(error.retryAfterMs).toBeLessThanOrEqual(45 * 60_000)
    expect(h.requests.length - before).toBe(1)
    expect(h.sleeps.length).toBe(sleepsBefore)
  })

  it('throws BankRateLimitError with retryAfterMs once retries are used up', async () => {
    await h.harness.request('PUT', '/_sandbox/faults', {
      body: { api: { rateLimitRate: 1, retryAfterSeconds: 3 } },
    })
    const error = await caught(h.clientWith({ maxRetries: 0 }).institutions.list())
    expect(error).toBeInstanceOf(BankRateLimitError)
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterMs: 3000 })
  })
})

describe('cursors', () => {
  it('throws BankInvalidCursorError for a malformed sync cursor', async () => {
    const error = await caught(h.client.transactions.sync({ cursor: 'not-a-cursor' }))
    expect(error).toBeInstanceOf(BankInvalidCursorError)
    expect(error).toMatchObject({ status: 400, code: 'invalid_cursor' })
  })

  it('throws BankInvalidCursorError for a sync cursor used with other filters', async () => {
    const head = await h.client.transactions.sync({ connectionId: ready.connection.id })
    const error = await caught(
      h.client.transactions.sync({ cursor: head.nextCursor, accountId: ready.accounts[0]!.id }),
    )
    expect(error).toBeInstanceOf(BankInvalidCursorError)
  })

  it('throws BankCursorExpiredError for a sync cursor older than 90 days', async () => {
    // Its own sandbox: 91 virtual days would otherwise age everything the other tests use.
    const own = await startClientHarness({ sandbox: { scheduledSyncIntervalSeconds: 0 } })
    try {
      const { connection } = await connectReadyBank(own.harness)
      const head = await own.client.transactions.sync({ connectionId: connection.id })
      await own.harness.sandbox.advance(91 * 86_400)
      const error = await caught(
        own.client.transactions.sync({ cursor: head.nextCursor, connectionId: connection.id }),
      )
      expect(error).toBeInstanceOf(BankCursorExpiredError)
      expect(error).toMatchObject({ status: 410, code: 'cursor_expired' })
    } finally {
      await own.close()
    }
  })
})

describe('validation', () => {
  it('throws BankValidationError with field details when the service rejects the request', async () => {
    const error = await caught(h.client.transactions.list({ fields: 'noSuchField' }))
    expect(error).toBeInstanceOf(BankValidationError)
    expect(error.status).toBe(400)
    expect(error.details?.[0]?.path).toBe('query.fields')
  })

  const invalidCalls: Array<[string, string, (c: ClientHarness['client']) => Promise<unknown>]> = [
    [
      'an http portalUrl',
      'portalUrl',
      (c) => c.connections.create({ entityId: randomUUID(), portalUrl: 'http://bank.test' }),
    ],
    ['a limit of 0', 'limit', (c) => c.transactions.list({ limit: 0 })],
    ['a limit of 501', 'limit', (c) => c.balances.list({ limit: 501 })],
    ['an unknown sort', 'sort', (c) => c.transactions.list({ sort: 'amount' as never })],
    [
      'an empty clientReference',
      'clientReference',
      (c) => c.transfers.create(transferBody({ clientReference: '' })),
    ],
    [
      'a 141-character clientReference',
      'clientReference',
      (c) => c.transfers.create(transferBody({ clientReference: 'x'.repeat(141) })),
    ],
    ['a 501-character memo', 'memo', (c) => c.transfers.create(transferBody({ memo: 'm'.repeat(501) }))],
    [
      'an amount that is not a decimal string',
      'amount.value',
      (c) => c.transfers.create(transferBody({ amount: { type: 'money', value: '12,50', currency: 'USD' } })),
    ],
    [
      'an Idempotency-Key with surrounding space',
      'idempotencyKey',
      (c) => c.transfers.create(transferBody(), { idempotencyKey: ' key' }),
    ],
    [
      'a 256-character Idempotency-Key',
      'idempotencyKey',
      (c) => c.transfers.retry(randomUUID(), { idempotencyKey: 'k'.repeat(256) }),
    ],
    ['an empty path id', 'connectionId', (c) => c.connections.get('')],
    [
      'a plain-http webhook url',
      'url',
      (c) => c.webhooks.create({ url: 'http://127.0.0.1:1/hooks', events: ['test'] }),
    ],
  ]

  it.each(invalidCalls)(
    'rejects %s with a ValidationError naming %s, before any request',
    async (_what, field, call) => {
      const before = h.requests.length
      const error = await caught(call(h.client))
      expect(error).toBeInstanceOf(ValidationError)
      expect((error as ValidationError).field).toBe(field)
      expect(error.message).toContain(field)
      expect(h.requests.length).toBe(before)
    },
  )

  it('rejects client options without a usable baseUrl or apiKey', () => {
    expect(() => createBankClient({ baseUrl: 'ftp://127.0.0.1', apiKey: 'k' })).toThrow(ValidationError)
    expect(() => createBankClient({ baseUrl: h.harness.url, apiKey: '' })).toThrow(/apiKey/)
  })

  it('never echoes a rejected password in the ValidationError', async () => {
    const password = `p${'w'.repeat(1100)}`
    const error = await caught(h.client.connections.submitCredentials(ready.connection.id, { password }))
    expect(error).toBeInstanceOf(ValidationError)
    expect(JSON.stringify(error)).not.toContain(password)
    expect(inspect(error)).not.toContain(password)
  })
})

describe('malformed responses', () => {
  const rewriting =
    (rewrite: (body: any) => unknown): typeof fetch =>
    async (input, init) => {
      const response = await fetch(input, init)
      const body = rewrite(await response.json())
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers })
    }

  it('throws ResponseValidationError with the path of a known field of the wrong type', async () => {
    const client = h.clientWith({ fetch: rewriting((account) => ({ ...account, currentBalance: 12.5 })) })
    const error = await caught(client.accounts.get(ready.accounts[0]!.id))
    expect(error).toBeInstanceOf(ResponseValidationError)
    expect((error as ResponseValidationError).path).toBe('currentBalance')
    expect(error.requestId).toMatch(/^req_/)
  })

  it('tolerates unknown fields and reserved enum values', async () => {
    const client = h.clientWith({
      fetch: rewriting((page) => ({
        ...page,
        futureField: { nested: true },
        data: page.data.map((t: any) => ({ ...t, status: 'reversed', newThing: 1 })),
      })),
    })
    const page = await client.transactions.list({ connectionId: ready.connection.id, limit: 2 })
    expect(page.data[0]).toMatchObject({ status: 'reversed', newThing: 1 })
  })
})

describe('no answer', () => {
  it('throws BankServerError for a 5xx and BankConnectionError for a dropped connection, once retries are out', async () => {
    await h.harness.request('PUT', '/_sandbox/faults', { body: { api: { errorRate: 1 } } })
    const client = h.clientWith({ maxRetries: 0 })
    const seen = new Set<string>()
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const error = await caught(client.institutions.list())
      expect(error instanceof BankServerError || error instanceof BankConnectionError).toBe(true)
      seen.add(error.constructor.name)
    }
    expect(seen).toEqual(new Set(['BankServerError', 'BankConnectionError']))
  })

  it('throws BankConnectionError when nothing listens, without the key anywhere', async () => {
    const port = await closedPort()
    const client = createBankClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: h.harness.apiKey,
      maxRetries: 2,
      sleep: async () => undefined,
    })
    const error = await caught(client.institutions.list())
    expect(error).toBeInstanceOf(BankConnectionError)
    expect(error.code).toBe('connection_error')
    expect(error.message).toContain('ECONNREFUSED')
    expectNoKey(error, h.harness.apiKey)
  })

  it('throws BankTimeoutError when no answer comes within timeoutMs', async () => {
    await h.harness.request('PUT', '/_sandbox/faults', { body: { api: { latencyMs: 1000 } } })
    const error = await caught(h.clientWith({ timeoutMs: 20, maxRetries: 0 }).institutions.list())
    expect(error).toBeInstanceOf(BankTimeoutError)
    expect(error).toBeInstanceOf(BankConnectionError)
    expect(error.code).toBe('timeout')
  })
})

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

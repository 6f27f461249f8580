import { randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  BankNotFoundError,
  BankRateLimitError,
  BankServerError,
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

const setFaults = async (api: Record<string, number>) => {
  const answer = await h.harness.request('PUT', '/_sandbox/faults', { body: { api } })
  expect(answer.status).toBe(200)
}

const transferBody = (): TransferCreateParams => ({
  type: 'internal',
  transferType: 'internal',
  amount: { type: 'money', value: '1.00', currency: ready.source.currency },
  sourceAccountId: ready.source.id,
  destination: { type: 'account', accountId: ready.destination.id },
  clientReference: `INV-${randomUUID().slice(0, 8)}`,
  skipPreflight: true,
})

/** A fetch that answers the first calls itself, then passes through to the real one. */
function scripted(first: Array<(...args: Parameters<typeof fetch>) => Promise<Response>>): typeof fetch {
  let call = 0
  return (input, init) => (first[call++] ?? fetch)(input, init)
}

describe('idempotency keys', () => {
  it('generates one Idempotency-Key per transfer create and sends it on every retry', async () => {
    await setFaults({ errorRate: 0.5 })
    const client = h.clientWith({ maxRetries: 20 })
    const before = h.requests.length
    const transfer = await client.transfers.create(transferBody())
    const attempts = h.requests.slice(before)
    expect(attempts.length).toBeGreaterThan(1)
    const keys = new Set(attempts.map((a) => a.headers['idempotency-key']))
    expect(keys.size).toBe(1)
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/)
    const state = await h.harness.request('GET', `/_sandbox/state?connectionId=${ready.connection.id}`)
    const matching = state.body.transfers.filter((t: any) => t.clientReference === transfer.clientReference)
    expect(matching).toHaveLength(1)
  })

  it('uses a fresh key for each logical call', async () => {
    const before = h.requests.length
    await h.client.transfers.create(transferBody())
    await h.client.transfers.create(transferBody())
    const keys = h.requests.slice(before).map((a) => a.idempotencyKey)
    expect(new Set(keys).size).toBe(2)
  })

  it("sends the caller's Idempotency-Key verbatim, also on transfers.retry", async () => {
    const created = await h.client.transfers.create(transferBody(), { idempotencyKey: 'order-42/create' })
    await h.harness.request('POST', `/_sandbox/transfers/${created.id}/outcome`, {
      body: { status: 'failed', failureReason: { message: 'declined' } },
    })
    const before = h.requests.length
    await h.client.transfers.retry(created.id, { idempotencyKey: 'order-42/retry-1' })
    expect(h.requests.slice(before).map((a) => a.headers['idempotency-key'])).toEqual(['order-42/retry-1'])
  })

  it('replays the first answer when a retry follows a lost answer, so one transfer exists', async () => {
    // The first attempt reaches the sandbox and takes effect, but its answer is lost on the way back.
    const client = h.clientWith({
      fetch: scripted([
        async (input, init) => {
          await fetch(input, init)
          throw new TypeError('fetch failed', {
            cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
          })
        },
      ]),
    })
    const body = transferBody()
    const transfer = await client.transfers.create(body)
    const state = await h.harness.request('GET', `/_sandbox/state?connectionId=${ready.connection.id}`)
    const matching = state.body.transfers.filter((t: any) => t.clientReference === body.clientReference)
    expect(matching.map((t: any) => t.id)).toEqual([transfer.id])
  })
})

describe('what is retried', () => {
  it('retries a GET through 5xx and dropped connections until it succeeds', async () => {
    await setFaults({ errorRate: 0.6 })
    const before = h.requests.length
    const page = await h.clientWith({ maxRetries: 20 }).institutions.list()
    expect(page.data.length).toBeGreaterThan(0)
    expect(h.requests.length - before).toBeGreaterThan(1)
  })

  it('never retries a POST without an Idempotency-Key', async () => {
    await setFaults({ rateLimitRate: 1 })
    const before = h.requests.length
    await expect(
      h.client.webhooks.create({ url: 'https://127.0.0.1:9/hooks', events: ['test'] }),
    ).rejects.toBeInstanceOf(BankRateLimitError)
    expect(h.requests.length - before).toBe(1)
  })

  it('gives up after maxRetries retries with the last error', async () => {
    await setFaults({ rateLimitRate: 1, retryAfterSeconds: 1 })
    const before = h.requests.length
    await expect(h.clientWith({ maxRetries: 2 }).accounts.list()).rejects.toBeInstanceOf(BankRateLimitError)
    expect(h.requests.slice(before).map((a) => a.attempt)).toEqual([0, 1, 2])
  })
})

describe('waiting between attempts', () => {
  it('waits at least the Retry-After seconds of a 429', async () => {
    await setFaults({ rateLimitRate: 1, retryAfterSeconds: 2 })
    const before = h.sleeps.length
    await expect(h.clientWith({ maxRetries: 2 }).accounts.list()).rejects.toBeInstanceOf(BankRateLimitError)
    const waits = h.sleeps.slice(before)
    expect(waits).toHaveLength(2)
    for (const ms of waits) expect(ms).toBeGreaterThanOrEqual(2000)
  })

  it('waits until a Retry-After HTTP date', async () => {
    const now = Date.parse('2026-03-02T09:00:00Z')
    const client = h.clientWith({
      now: () => now,
      fetch: scripted([
        async () =>
          new Response(JSON.stringify({ error: { code: 'service_unavailable', message: 'busy' } }), {
            status: 503,
            headers: { 'retry-after': 'Mon, 02 Mar 2026 09:00:04 GMT' },
          }),
      ]),
    })
    const before = h.sleeps.length
    await client.institutions.list()
    expect(h.sleeps.slice(before)).toEqual([4000])
  })

  it('surfaces a Retry-After beyond 60 s instead of sleeping through it', async () => {
    await setFaults({ rateLimitRate: 1, retryAfterSeconds: 120 })
    const before = h.sleeps.length
    const error = await h.client.accounts.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BankRateLimitError)
    expect((error as BankRateLimitError).retryAfterMs).toBe(120_000)
    expect(h.sleeps.length).toBe(before)
  })

  it('backs off exponentially with jitter between 5xx retries', async () => {
    const fail = async () =>
      new Response(JSON.stringify({ error: { code: 'internal_error', message: 'boom' } }), { status: 500 })
    const client = h.clientWith({ random: () => 0, maxRetries: 3, fetch: scripted([fail, fail, fail, fail]) })
    const before = h.sleeps.length
    await expect(client.institutions.list()).rejects.toBeInstanceOf(BankServerError)
    expect(h.sleeps.slice(before)).toEqual([250, 500, 1000])
  })
})

describe('cancellation', () => {
  it("rejects with the caller's abort reason and sends nothing once the signal is aborted", async () => {
    const before = h.requests.length
    const reason = new Error('shutting down')
    await expect(h.client.accounts.list({}, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason)
    expect(h.requests.length).toBe(before)
  })
})

describe('DELETE after a lost answer', () => {
  it('treats a 404 on the retry of a delete whose first answer was lost as done', async () => {
    const { connection } = await connectReadyBank(h.harness)
    const client = h.clientWith({
      fetch: scripted([
        async (input, init) => {
          await fetch(input, init)
          throw new TypeError('fetch failed')
        },
      ]),
    })
    await expect(client.connections.delete(connection.id)).resolves.toBeUndefined()
    await expect(h.client.connections.get(connection.id)).rejects.toBeInstanceOf(BankNotFoundError)
  })

  it('still reports a 404 on the first attempt as not found', async () => {
    await expect(h.client.webhooks.delete(`wh_${randomUUID()}`)).rejects.toBeInstanceOf(BankNotFoundError)
  })
})

describe('hooks', () => {
  it('gives onRequest the headers with Authorization redacted, and onResponse the request id', async () => {
    const before = h.requests.length
    const responsesBefore = h.responses.length
    await h.client.institutions.get('ins_harbor_national')
    const [event] = h.requests.slice(before)
    expect(event!.headers.authorization).toBe('Bearer [redacted]')
    expect(JSON.stringify(event)).not.toContain(h.harness.apiKey)
    expect(h.responses.slice(responsesBefore)[0]).toMatchObject({
      status: 200,
      requestId: expect.stringMatching(/^req_/),
    })
  })

  it('never hands the request body (and so a bank password) to onRequest', async () => {
    const before = h.requests.length
    const setup = await h.client.connections.create({
      entityId: randomUUID(),
      portalUrl: 'https://hooks.unlisted.test/',
    })
    await h.client.connections.submitCredentials(setup.id, { password: 'hunter2-secret' })
    expect(JSON.stringify(h.requests.slice(before))).not.toContain('hunter2-secret')
  })
})

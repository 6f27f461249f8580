import { randomBytes, randomUUID } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { systemClock, type Clock } from '../../src/clock/index.js'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import { startSidecar, type Sidecar } from '../../src/sidecar/index.js'
import { startAppEndpoint, type AppEndpoint } from '../app-events/app-endpoint.js'
import { onboardUsdCheckingAccount } from '../support/onboard-sandbox-connection.js'
import { dropSidecarSchemas, TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

const suffix = randomBytes(4).toString('hex')
const schema = `test_sidecar_transfers_${suffix}`
const TOKEN = 'test-token-0123456789'
const APP_SECRET = 'app-webhook-secret-0123456789'
let sidecar: Sidecar
let app: AppEndpoint
let source: string
let destination: string

// bankrec reads the in-process bank's virtual clock, so advancing the sandbox moves the tracker's schedule too.
const clock: Clock = { now: () => (sidecar?.context.bank.sandbox?.clock ?? systemClock).now() }

async function api(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${sidecar.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })
  return { status: response.status, headers: response.headers, body: (await response.json()) as any }
}

const onboardAccount = () => onboardUsdCheckingAccount(sidecar.context.bank)

function body(reference: string) {
  return {
    type: 'internal',
    amount: { type: 'money', value: '25.00', currency: 'USD' },
    sourceAccountId: source,
    destination: { type: 'account', accountId: destination },
    transferType: 'internal',
    clientReference: reference,
  }
}

async function appEventIdFor(transferId: string, type: string): Promise<string> {
  const row = await sidecar.context.store.db
    .selectFrom('app_events')
    .select('id')
    .where('type', '=', type)
    .where((eb) => eb(eb.ref('payload', '->>').key('transferId'), '=', transferId))
    .executeTakeFirstOrThrow()
  return row.id
}

beforeAll(async () => {
  app = await startAppEndpoint(APP_SECRET)
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `test-sidecar-transfers-${suffix}`,
    PORT: '0',
    KIT_API_TOKEN: TOKEN,
    APP_WEBHOOK_URL: app.url,
    APP_WEBHOOK_SECRET: APP_SECRET,
    // The test polls explicitly (tracker.pollDue) after moving the virtual clock.
    TRANSFER_SCAN_SECONDS: '3600',
  })
  sidecar = await startSidecar({
    config,
    roles: new Set(['receiver', 'worker', 'api']),
    logger: createLogger({ level: 'silent' }),
    clock,
    sandboxPort: 0,
  })
  source = await onboardAccount()
  destination = await onboardAccount()
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await app?.close()
  await dropSidecarSchemas(schema)
})

describe('transfers through the sidecar', () => {
  it('creates a transfer over HTTP, answers a repeated Idempotency-Key with the same record, and tells the app it completed', async () => {
    const key = `order-${randomUUID()}`
    const first = await api('POST', '/transfers', {
      body: body('INV-7001'),
      headers: { 'idempotency-key': key },
    })
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(first.body).toMatchObject({ idempotencyKey: key, status: 'queued', clientReference: 'INV-7001' })
    expect(first.body.bankTransferId).toMatch(/^[0-9a-f-]{36}$/)

    const again = await api('POST', '/transfers', {
      body: body('INV-7001'),
      headers: { 'idempotency-key': key },
    })
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body.id).toBe(first.body.id)

    const { sandbox } = sidecar.context.bank
    await sandbox!.advance(15)
    await sidecar.context.outbound!.tracker.pollDue()
    const read = await api('GET', `/transfers/${first.body.id}`)
    expect(read.body).toMatchObject({ status: 'completed', bankTransferId: first.body.bankTransferId })
    const byBankId = await api('GET', `/transfers/${first.body.bankTransferId}`)
    expect(byBankId.body.id).toBe(first.body.id)

    const received = await app.waitFor(await appEventIdFor(first.body.id, 'transfer.completed'))
    expect(received).toMatchObject({
      type: 'transfer.completed',
      verified: true,
      data: {
        transferId: first.body.id,
        bankTransferId: first.body.bankTransferId,
        clientReference: 'INV-7001',
      },
    })
    const state = await fetch(`${sidecar.context.bank.baseUrl}/_sandbox/state`).then((r) => r.json() as any)
    expect(state.transfers.filter((t: any) => t.clientReference === 'INV-7001')).toHaveLength(1)
  })

  it('alerts operations and the app when a transfer fails, and retries it with a new key', async () => {
    const created = await api('POST', '/transfers', { body: body('INV-7002') })
    expect(created.status).toBe(201)
    expect(created.body.idempotencyKey).toBeTruthy()
    const forced = await fetch(
      `${sidecar.context.bank.baseUrl}/_sandbox/transfers/${created.body.bankTransferId}/outcome`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
        body: JSON.stringify({ status: 'failed', failureReason: { message: 'Beneficiary account closed.' } }),
      },
    )
    expect(forced.status).toBe(200)
    await sidecar.context.bank.sandbox!.advance(1)
    await sidecar.context.outbound!.tracker.pollDue()

    const notices = await sidecar.context.store.db
      .selectFrom('alert_notices')
      .select(['type', 'kind', 'severity', 'notice'])
      .where('kind', '=', 'failed')
      .execute()
    const ours = notices.filter((n) => JSON.stringify(n.notice).includes(created.body.bankTransferId))
    expect(ours.map((n) => [n.type, n.severity])).toEqual([['alert', 'critical']])
    expect(JSON.stringify(ours[0]!.notice)).toContain('Beneficiary account closed.')
    const failed = await app.waitFor(await appEventIdFor(created.body.id, 'transfer.failed'))
    expect(failed.data).toMatchObject({
      status: 'failed',
      failureReason: { message: 'Beneficiary account closed.' },
    })

    const retried = await api('POST', `/transfers/${created.body.id}/retry`)
    expect(retried.status, JSON.stringify(retried.body)).toBe(200)
    expect(retried.body.status).toBe('queued')
    expect(retried.body.attempts.map((a: any) => a.kind)).toEqual(['create', 'retry'])
    expect(retried.body.attempts[1].idempotencyKey).not.toBe(created.body.idempotencyKey)
    const notRetryable = await api('POST', `/transfers/${created.body.id}/retry`)
    expect(notRetryable.status).toBe(409)
    expect(notRetryable.body.error.code).toBe('transfer_not_retryable')
  })

  it('answers a bad create body with every problem and an unknown transfer with 404', async () => {
    const bad = await api('POST', '/transfers', {
      body: { ...body(''), amount: { type: 'money', value: '-1', currency: 'USD' } },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe('validation_error')
    expect(bad.body.error.details.map((d: any) => d.path)).toEqual(
      expect.arrayContaining(['body.clientReference', 'body.amount.value']),
    )
    const missing = await api('GET', `/transfers/${randomUUID()}`)
    expect(missing.status).toBe(404)
  })

  it('creates and retries transfers from the command line', async () => {
    const out = new PassThrough()
    const err = new PassThrough()
    const chunks: string[] = []
    const errors: string[] = []
    out.on('data', (c) => chunks.push(String(c)))
    err.on('data', (c) => errors.push(String(c)))
    const env = {
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: schema,
      BANK_API_URL: sidecar.context.bank.baseUrl,
      BANK_API_KEY: sidecar.context.bank.sandbox!.apiKey,
      LOG_LEVEL: 'silent',
    }
    const io = { stdout: out, stderr: err, env, untilStopped: () => new Promise<void>(() => undefined) }
    const argv = [
      'transfer',
      'create',
      '--from',
      source,
      '--to',
      destination,
      '--amount',
      '12.34',
      '--currency',
      'USD',
    ]
    const code = await runCli(
      [...argv, '--reference', 'INV-7003', '--idempotency-key', 'cli-key-7003', '--json'],
      io,
    )
    expect(code, errors.join('')).toBe(0)
    const record = JSON.parse(chunks.join(''))
    expect(record).toMatchObject({
      idempotencyKey: 'cli-key-7003',
      status: 'queued',
      amount: { value: '12.34', currency: 'USD' },
    })
    expect((await api('GET', `/transfers/${record.id}`)).body.bankTransferId).toBe(record.bankTransferId)

    chunks.length = 0
    expect(await runCli(['transfer', 'retry', record.id], io)).toBe(1)
    expect(errors.join('')).toContain('Only a failed or returned transfer can be retried')
  })
})

import { randomBytes, randomUUID } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { Redis } from 'ioredis'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import { startSidecar, type Sidecar } from '../../src/sidecar/index.js'
import { startAlertEndpoint, type AlertEndpoint } from '../support/alert-endpoint.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

const suffix = randomBytes(4).toString('hex')
const schema = `test_conn_api_${suffix}`
const prefix = `test-conn-api-${suffix}`
const TOKEN = 'test-token-0123456789'
const PASSWORD = `Pw-${randomUUID()}`
let sidecar: Sidecar
let slack: AlertEndpoint
let logs = ''
const responses: string[] = []

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sidecar.url}/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  responses.push(text)
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

async function onboard(target: { institutionId?: string; portalUrl?: string }): Promise<string> {
  const created = await api('POST', '/connections', { entityId: randomUUID(), ...target })
  expect(created.status).toBe(201)
  expect(created.body).toMatchObject({ kind: 'setup', status: 'draft', openIncident: null })
  const id = created.body.id as string
  const credentials = await api('PUT', `/connections/${id}/credentials`, {
    bankUsername: 'delegate.ops',
    password: PASSWORD,
  })
  expect(credentials.status).toBe(200)
  expect(credentials.body.setup).toMatchObject({ credentialsPresent: true, nextAction: 'activateConnection' })
  const completed = await api('PUT', `/connections/${id}/setupCompletion`)
  expect(completed.body.status).toBe('pendingActivation')
  await sidecar.context.bank.sandbox!.advance(15)
  const ready = await api('GET', `/connections/${id}`)
  expect(ready.body).toMatchObject({ id, kind: 'ready', status: 'active' })
  return id
}

beforeAll(async () => {
  slack = await startAlertEndpoint()
  const capture = new PassThrough()
  capture.on('data', (chunk) => (logs += chunk))
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: prefix,
    PORT: '0',
    KIT_API_TOKEN: TOKEN,
    ALERT_SLACK_WEBHOOK_URL: slack.url,
    ALERT_TICK_SECONDS: '1',
  })
  sidecar = await startSidecar({
    config,
    roles: new Set(['receiver', 'worker', 'api']),
    logger: createLogger({ level: 'trace', destination: capture }),
    sandboxPort: 0,
  })
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await slack?.close()
  const { Client } = (await import('pg')).default
  const client = new Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  await client.query(`drop schema if exists ${schema} cascade`)
  await client.end()
})

describe('connections API', () => {
  it('onboards a catalog bank and an unlisted portal through the bank, step by step', async () => {
    const catalog = await onboard({ institutionId: 'ins_harbor_national' })
    const unlisted = await onboard({ portalUrl: 'https://online.unlisted-bank.example/business' })
    const unlistedNow = await api('GET', `/connections/${unlisted}`)
    expect(unlistedNow.body.institutionId).toMatch(/^ins_unlisted_/)
    const list = await api('GET', '/connections')
    expect(list.body.pagination).toEqual({ hasMore: false, nextCursor: null })
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual(
      expect.arrayContaining([catalog, unlisted]),
    )
  })

  it('lists a connection needing re-authentication with its open incident, named with its delegated user', async () => {
    const id = await onboard({ institutionId: 'ins_harbor_national' })
    const { bank } = sidecar.context
    await fetch(`${bank.baseUrl}/_sandbox/connections/${id}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
      body: JSON.stringify({ status: 'reauthRequired', errorCode: 'password_expired' }),
    })
    await bank.sandbox!.flushWebhooks()
    await vi.waitFor(
      async () => {
        const list = await api('GET', '/connections')
        const row = list.body.data.find((c: { id: string }) => c.id === id)
        expect(row).toMatchObject({ status: 'reauthRequired', openIncident: { kind: 'reauthRequired' } })
      },
      { timeout: 20_000, interval: 100 },
    )
    await vi.waitFor(() => expect(slack.received.some((r) => r.raw.includes(id))).toBe(true), {
      timeout: 20_000,
    })
    const alert = slack.received.find((r) => r.raw.includes(id))!
    expect(alert.raw).toContain('The delegated user')
    expect(alert.raw).toMatch(/sign-in: /)
  })

  it('answers the bank’s refusal with its status and code', async () => {
    const missing = await api('POST', '/connections', { entityId: randomUUID(), institutionId: 'ins_nope' })
    expect(missing.status).toBe(404)
    expect(missing.body.error).toMatchObject({ code: 'not_found' })
    const invalid = await api('POST', '/connections', { entityId: 'not-a-uuid', institutionId: 'x' })
    expect(invalid.status).toBe(400)
    expect(invalid.body.error.code).toBe('validation_error')
  })

  it('never stores, logs, echoes or alerts the bank password', async () => {
    expect(logs.length).toBeGreaterThan(0)
    expect(logs).not.toContain(PASSWORD)
    expect(responses.join('\n')).not.toContain(PASSWORD)
    expect(slack.received.map((r) => r.raw).join('\n')).not.toContain(PASSWORD)
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = ${schema}
    `.execute(sidecar.context.store.db)
    expect(tables.rows.length).toBeGreaterThan(5)
    for (const { table_name } of tables.rows) {
      const rows = await sql<{ row: string }>`select t::text as row from ${sql.table(table_name)} t`.execute(
        sidecar.context.store.db,
      )
      expect(rows.rows.map((r) => r.row).join('\n'), table_name).not.toContain(PASSWORD)
    }
    const redis = new Redis('redis://127.0.0.1:6379')
    try {
      const keys = await redis.keys(`${prefix}:*`)
      expect(keys.length).toBeGreaterThan(0)
      for (const key of keys) {
        const type = await redis.type(key)
        const value =
          type === 'string'
            ? await redis.get(key)
            : type === 'hash'
              ? JSON.stringify(await redis.hgetall(key))
              : type === 'list'
                ? JSON.stringify(await redis.lrange(key, 0, -1))
                : type === 'zset'
                  ? JSON.stringify(await redis.zrange(key, '0', '-1'))
                  : type === 'set'
                    ? JSON.stringify(await redis.smembers(key))
                    : ''
        expect(value ?? '', key).not.toContain(PASSWORD)
      }
    } finally {
      redis.disconnect()
    }
  })
})

import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import { startSidecar, type Sidecar } from '../../src/sidecar/index.js'
import { startAppEndpoint, type AppEndpoint } from '../app-events/app-endpoint.js'
import { dumpTables } from '../support/table-snapshot.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

const suffix = randomBytes(4).toString('hex')
const schema = `test_secret_scan_${suffix}`
const prefix = `test-secret-scan-${suffix}`
const REDIS_URL = 'redis://127.0.0.1:6379'

/** Every secret the sidecar holds, each unique enough that any hit is a leak. */
const SECRETS = {
  KIT_API_TOKEN: `kit_scan_${randomBytes(12).toString('hex')}`,
  BANK_API_KEY: `sk_test_scan_${randomBytes(12).toString('hex')}`,
  WEBHOOK_SECRETS: `whsec_scan_${randomBytes(12).toString('hex')}`,
  APP_WEBHOOK_SECRET: `app_scan_${randomBytes(12).toString('hex')}`,
  ALERT_WEBHOOK_SECRET: `alert_scan_${randomBytes(12).toString('hex')}`,
  password: `pw_scan_${randomBytes(12).toString('hex')}`,
}
/** The secret the sandbox returned when the sidecar registered its webhook (read from the store after start). */
let registeredSecret: string

const logLines: string[] = []
const responses: string[] = []
let sidecar: Sidecar
let app: AppEndpoint
let alerts: AppEndpoint

const captured = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
    done()
  },
})

/** A request to the sidecar whose whole answer (status line, headers, body) is kept for the scan. */
async function call(
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${sidecar.url}${path}`, {
    method,
    headers: options.headers,
    body: options.body,
    redirect: 'manual',
  })
  const text = await response.text()
  responses.push(
    `${method} ${path} ${response.status}\n${[...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${text}`,
  )
  return { status: response.status, text, json: () => JSON.parse(text) as any }
}
const auth = { authorization: `Bearer ${SECRETS.KIT_API_TOKEN}`, 'content-type': 'application/json' }
const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(method, `/api${path}`, {
    headers: { ...auth, ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })

function signedDelivery(secret: string, event: Record<string, unknown>) {
  const body = JSON.stringify(event)
  const t = Math.floor(Date.now() / 1000)
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')
  return { body, headers: { 'content-type': 'application/json', 'service-signature': `t=${t},v1=${v1}` } }
}

beforeAll(async () => {
  app = await startAppEndpoint(SECRETS.APP_WEBHOOK_SECRET)
  alerts = await startAppEndpoint(SECRETS.ALERT_WEBHOOK_SECRET)
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    PORT: '0',
    ...SECRETS,
    APP_WEBHOOK_URL: app.url,
    ALERT_WEBHOOK_URL: alerts.url,
  })
  sidecar = await startSidecar({
    config,
    roles: new Set(['receiver', 'worker', 'api']),
    logger: createLogger({ level: 'trace', destination: captured }),
    sandboxPort: 0,
  })
  const registration = await sidecar.context.store.db
    .selectFrom('webhook_registrations')
    .select('secret_sealed')
    .executeTakeFirstOrThrow()
  registeredSecret = sidecar.context.store.secretBox.open(registration.secret_sealed!)
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await app?.close()
  await alerts?.close()
  const redis = new Redis(REDIS_URL)
  for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 })) {
    if ((keys as string[]).length > 0) await redis.unlink(...(keys as string[]))
  }
  redis.disconnect()
  const { Client } = (await import('pg')).default
  const client = new Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  await client.query(`drop schema if exists ${schema} cascade`)
  await client.end()
})

async function onboard(): Promise<{ connectionId: string; accounts: any[] }> {
  const created = await api('POST', '/connections', {
    entityId: randomUUID(),
    institutionId: 'ins_harbor_national',
  })
  expect(created.status, created.text).toBe(201)
  const id = created.json().id as string
  // The password goes through every path: refused as too long, malformed JSON, then accepted.
  await api('PUT', `/connections/${id}/credentials`, {
    bankUsername: 'delegate',
    password: SECRETS.password.repeat(80),
  })
  await api(
    'PUT',
    `/connections/${id}/credentials`,
    `{"bankUsername":"delegate","password":"${SECRETS.password}`,
  )
  await api('PUT', `/connections/${id}/credentials`, {
    bankUsername: 'delegate',
    password: SECRETS.password,
    extra: 1,
  })
  const credentials = await api('PUT', `/connections/${id}/credentials`, {
    bankUsername: 'delegate',
    password: SECRETS.password,
  })
  expect(credentials.status, credentials.text).toBe(200)
  expect((await api('PUT', `/connections/${id}/setupCompletion`)).status).toBe(200)
  const { sandbox } = sidecar.context.bank
  await sandbox!.advance(120)
  await sandbox!.flushWebhooks()
  const accounts = await sidecar.context.bank.client.accounts.list({ connectionId: id })
  return { connectionId: id, accounts: accounts.data }
}

describe('secrets never leave where they belong', () => {
  it(
    'appear in no log line, no HTTP answer, no database row (webhook secrets are sealed) and no queue entry',
    { timeout: 120_000 },
    async () => {
      const { connectionId, accounts } = await onboard()
      await onboard()

      // Webhook deliveries: genuine (the configured and the registered secret), forged, and malformed.
      const test = () => ({
        id: `evt_${randomUUID()}`,
        type: 'test',
        createdAt: new Date().toISOString(),
        data: { webhookId: 'wh' },
      })
      for (const secret of [
        SECRETS.WEBHOOK_SECRETS,
        registeredSecret,
        'whsec_forged',
        `${SECRETS.WEBHOOK_SECRETS}x`,
      ]) {
        const delivery = signedDelivery(secret, test())
        await call('POST', '/webhooks', delivery)
      }
      await call('POST', '/webhooks', {
        ...signedDelivery(SECRETS.WEBHOOK_SECRETS, test()),
        body: `{"secret":"${SECRETS.WEBHOOK_SECRETS}"`,
      })
      await call('POST', '/webhooks', {
        headers: { 'content-type': 'application/json', 'service-signature': SECRETS.WEBHOOK_SECRETS },
        body: '{}',
      })

      // API errors, including tokens that are almost right.
      await call('GET', '/api/connections', {
        headers: { authorization: `Bearer ${SECRETS.KIT_API_TOKEN.slice(0, -1)}` },
      })
      await call('GET', '/api/connections', { headers: { authorization: `Basic ${SECRETS.KIT_API_TOKEN}` } })
      await call('POST', '/admin/session', { headers: { authorization: `Bearer ${SECRETS.KIT_API_TOKEN}` } })
      await call('GET', '/admin/queues', { headers: { authorization: `Bearer ${SECRETS.KIT_API_TOKEN}` } })
      await call('POST', '/dashboard/login', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `token=${SECRETS.BANK_API_KEY}`,
      })
      await api('GET', '/transfers/no-such-transfer')
      await api('POST', '/transfers', { type: 'internal', amount: { value: SECRETS.password } })
      await api('PUT', '/invoices/INV-1', { number: 'INV-1', amount: SECRETS.BANK_API_KEY, currency: 'EUR' })

      // A transfer between two accounts of the same currency, and the tracker and app events after it.
      const [source, destination] = accounts.filter((a) => a.currency === accounts[0].currency)
      if (source && destination) {
        const created = await api('POST', '/transfers', {
          type: 'internal',
          transferType: 'internal',
          amount: { type: 'money', value: '5.00', currency: source.currency },
          sourceAccountId: source.id,
          destination: { type: 'account', accountId: destination.id },
          clientReference: 'INV-SCAN-1',
        })
        expect(created.status, created.text).toBe(201)
      }

      // Bank failures: every call answers 5xx or drops the connection for a while.
      const sandboxUrl = sidecar.context.bank.baseUrl
      const faults = (body: unknown) =>
        fetch(`${sandboxUrl}/_sandbox/faults`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
          body: JSON.stringify(body),
        })
      await faults({ api: { errorRate: 1 } })
      await api('GET', `/connections/${connectionId}`)
      await api('POST', `/connections/${connectionId}/sync`)
      await api('POST', '/connections', { entityId: randomUUID(), institutionId: 'ins_harbor_national' })
      await sidecar.context.requestSync(connectionId, 'secret-scan')
      await vi.waitFor(
        () =>
          expect(logLines.some((line) => line.includes('"level":40') || line.includes('"level":50'))).toBe(
            true,
          ),
        { timeout: 20_000 },
      )
      await faults({})
      await sidecar.context.bank.sandbox!.advance(60)
      await sidecar.context.bank.sandbox!.flushWebhooks()
      await vi.waitFor(
        async () => {
          const synced = await sidecar.context.store.db
            .selectFrom('transactions')
            .select('id')
            .where('connection_id', '=', connectionId)
            .execute()
          expect(synced.length).toBeGreaterThan(0)
        },
        { timeout: 30_000, interval: 200 },
      )

      const secrets: Array<[string, string]> = [
        ...Object.entries(SECRETS),
        ['registered webhook secret', registeredSecret],
      ]
      const leaks: string[] = []
      const scan = (where: string, text: string) => {
        for (const [name, value] of secrets)
          if (text.includes(value)) leaks.push(`${name} in ${where}: ${text.slice(0, 300)}`)
      }
      expect(logLines.length).toBeGreaterThan(20)
      for (const line of logLines) scan('a log line', line)
      expect(responses.length).toBeGreaterThan(20)
      for (const response of responses) scan('an HTTP answer', response)
      for (const [table, rows] of await dumpTables(sidecar.context.store.db, schema)) {
        // Webhook signing secrets too: they are stored sealed (finding 7), so no table holds one in plaintext.
        for (const row of rows) scan(`table ${table}`, row)
      }
      const redis = new Redis(REDIS_URL)
      try {
        for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 })) {
          for (const key of keys as string[]) {
            const value = await redisValue(redis, key)
            scan(`redis ${key}`, `${key} ${value}`)
          }
        }
      } finally {
        redis.disconnect()
      }
      for (const delivery of [...app.deliveries, ...alerts.deliveries])
        scan('an outbound delivery', JSON.stringify(delivery))
      expect(leaks).toEqual([])

      // The scan saw what it should have: the registration (its secret sealed), rejected deliveries, bank failures,
      // and a password that reached the bank.
      const registrations = (await dumpTables(sidecar.context.store.db, schema)).get('webhook_registrations')!
      expect(registrations).toHaveLength(1)
      expect(registrations[0]).toMatch(/,v1\.[\w+/=]+\.[\w+/=]+\.[\w+/=]+\)$/)
      expect(logLines.some((line) => line.includes('webhook delivery rejected'))).toBe(true)
      expect(responses.some((response) => / 502\n/.test(response))).toBe(true)
      expect(
        responses.filter(
          (response) => response.startsWith('PUT /api/connections/') && / 200\n/.test(response),
        ).length,
      ).toBeGreaterThanOrEqual(4)
    },
  )
})

/** A Redis key's whole value as text, whatever its type. */
async function redisValue(redis: Redis, key: string): Promise<string> {
  switch (await redis.type(key)) {
    case 'string':
      return (await redis.get(key)) ?? ''
    case 'hash':
      return JSON.stringify(await redis.hgetall(key))
    case 'list':
      return JSON.stringify(await redis.lrange(key, 0, -1))
    case 'zset':
      return JSON.stringify(await redis.zrange(key, '0', '-1'))
    case 'set':
      return JSON.stringify(await redis.smembers(key))
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'))
    default:
      return ''
  }
}

import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createVirtualClock, type VirtualClock } from '../../src/clock/index.js'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import { WEBHOOK_EVENTS_QUEUE } from '../../src/queue/index.js'
import { startSidecar, type Sidecar } from '../../src/sidecar/index.js'
import { startAlertEndpoint, type AlertEndpoint, type ReceivedAlert } from '../support/alert-endpoint.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

const suffix = randomBytes(4).toString('hex')
const schema = `test_conn_alerts_${suffix}`
const prefix = `test-conn-alerts-${suffix}`
const WEBHOOK_SECRET = 'alert-signing-secret-0123456789'
const REMINDER_SECONDS = 3600
const STALE_SYNC_SECONDS = 6 * 3600
let sidecar: Sidecar
let slack: AlertEndpoint
let hook: AlertEndpoint
let clock: VirtualClock
let events: Queue

type SlackBody = { blocks: { type: string; elements?: { text: string }[] }[] }
type JsonBody = { id: string; type: string; kind: string; connection?: { id: string } }

/** The notice type a Slack message carries in its context line (icon · severity · type · time · id). */
function slackType(alert: ReceivedAlert): string {
  const context = (alert.body as SlackBody).blocks.find((b) => b.type === 'context')
  return context?.elements?.[0]?.text.split(' · ')[2] ?? ''
}

function slackFor(connectionId: string, type: string): ReceivedAlert[] {
  return slack.received.filter((r) => r.raw.includes(connectionId) && slackType(r) === type)
}

function jsonFor(connectionId: string, type: string): JsonBody[] {
  return hook.received
    .map((r) => r.body as JsonBody)
    .filter((b) => b.connection?.id === connectionId && b.type === type)
}

async function forceStatus(connectionId: string, status: string, errorCode?: string): Promise<void> {
  const { bank } = sidecar.context
  const response = await fetch(`${bank.baseUrl}/_sandbox/connections/${connectionId}/status`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
    body: JSON.stringify(
      errorCode ? { status, errorCode, errorMessage: 'The password has expired' } : { status },
    ),
  })
  expect(response.status).toBe(200)
}

async function setWebhookFaults(webhooks: { duplicateRate: number; reorder: boolean }): Promise<void> {
  const response = await fetch(`${sidecar.context.bank.baseUrl}/_sandbox/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
    body: JSON.stringify({ webhooks }),
  })
  expect(response.status).toBe(200)
}

/** Every delivered webhook handled and every notice delivered: nothing more can arrive without a new cause. */
async function settled(): Promise<void> {
  await sidecar.context.bank.sandbox!.flushWebhooks()
  await vi.waitFor(
    async () => {
      const counts = await events.getJobCounts('waiting', 'active', 'delayed', 'prioritized')
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0)
      const pending = await sidecar.context.store.db
        .selectFrom('alert_deliveries')
        .select('notice_id')
        .where('status', '=', 'pending')
        .execute()
      expect(pending).toEqual([])
    },
    { timeout: 20_000, interval: 100 },
  )
}

async function onboard(): Promise<string> {
  const { client, sandbox } = sidecar.context.bank
  const created = await client.connections.create({
    entityId: randomUUID(),
    institutionId: 'ins_harbor_national',
  })
  await client.connections.submitCredentials(created.id, { bankUsername: 'delegate', password: 'pw-onboard' })
  await client.connections.completeSetup(created.id)
  await sandbox!.advance(60)
  await sandbox!.flushWebhooks()
  await vi.waitFor(
    async () => {
      const row = await sidecar.context.store.db
        .selectFrom('connection_health')
        .select('record')
        .where('connection_id', '=', created.id)
        .executeTakeFirst()
      expect(row?.record.status).toBe('active')
    },
    { timeout: 20_000, interval: 100 },
  )
  return created.id
}

beforeAll(async () => {
  slack = await startAlertEndpoint()
  hook = await startAlertEndpoint()
  clock = createVirtualClock()
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: prefix,
    PORT: '0',
    KIT_API_TOKEN: 'test-token-0123456789',
    ALERT_SLACK_WEBHOOK_URL: slack.url,
    ALERT_WEBHOOK_URL: hook.url,
    ALERT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ALERT_REMINDER_SECONDS: String(REMINDER_SECONDS),
    ALERT_STALE_SYNC_SECONDS: String(STALE_SYNC_SECONDS),
    ALERT_TICK_SECONDS: '1',
  })
  sidecar = await startSidecar({
    config,
    roles: new Set(['receiver', 'worker', 'api']),
    logger: createLogger({ level: 'silent' }),
    clock,
    sandboxPort: 0,
  })
  events = new Queue(WEBHOOK_EVENTS_QUEUE, { connection: { host: '127.0.0.1', port: 6379 }, prefix })
}, 60_000)

afterAll(async () => {
  await events?.close()
  await sidecar?.close()
  await slack?.close()
  await hook?.close()
  const { Client } = (await import('pg')).default
  const client = new Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  await client.query(`drop schema if exists ${schema} cascade`)
  await client.end()
})

describe('connection health alerts, end to end against the sandbox', () => {
  it('sends one alert and one recovery for reauthRequired → active despite duplicated, reordered webhooks', async () => {
    const connectionId = await onboard()
    await setWebhookFaults({ duplicateRate: 1, reorder: true })
    try {
      // Both changes go out in one batch, shuffled and each delivered twice.
      await forceStatus(connectionId, 'reauthRequired', 'password_expired')
      await forceStatus(connectionId, 'active')
      await settled()
      await vi.waitFor(() => expect(slackFor(connectionId, 'recovery')).toHaveLength(1), { timeout: 20_000 })
      await settled()
    } finally {
      await setWebhookFaults({ duplicateRate: 0, reorder: false })
    }
    expect(slackFor(connectionId, 'alert')).toHaveLength(1)
    expect(slackFor(connectionId, 'recovery')).toHaveLength(1)
    expect(jsonFor(connectionId, 'alert').map((b) => b.kind)).toEqual(['reauthRequired'])
    expect(jsonFor(connectionId, 'recovery')).toHaveLength(1)
    const alert = slackFor(connectionId, 'alert')[0]!
    expect(alert.raw).toContain('needs re-authentication')
    expect(alert.raw).toContain('password_expired')
  })

  it('gives one alert and one recovery when the same episode’s events arrive reversed and repeated', async () => {
    const connectionId = `conn_${randomUUID()}`
    const start = clock.now().getTime() - 40 * 60_000
    const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString()
    const change = (eventId: string, status: string, minutes: number) => ({
      connectionId,
      status,
      errorCode: status === 'reauthRequired' ? 'password_expired' : null,
      errorMessage: null,
      eventId,
      occurredAt: at(minutes),
    })
    const episode = [
      change('evt_a', 'active', 0),
      change('evt_b', 'reauthRequired', 10),
      change('evt_c', 'pendingActivation', 20),
      change('evt_d', 'active', 30),
    ]
    const { connectionHealth } = sidecar.context
    for (const event of [episode[3]!, episode[2]!, episode[3]!, episode[1]!, episode[0]!, episode[1]!]) {
      await connectionHealth.observeStatusChange(event)
    }
    await settled()
    expect(jsonFor(connectionId, 'alert').map((b) => b.kind)).toEqual(['reauthRequired'])
    expect(jsonFor(connectionId, 'recovery')).toHaveLength(1)
    expect(slackFor(connectionId, 'alert')).toHaveLength(1)
    expect(slackFor(connectionId, 'recovery')).toHaveLength(1)
  })

  it('reminds on bankrec’s clock while the incident stays open, then recovers once', async () => {
    const connectionId = await onboard()
    await forceStatus(connectionId, 'reauthRequired', 'password_expired')
    await settled()
    await vi.waitFor(() => expect(slackFor(connectionId, 'alert')).toHaveLength(1), { timeout: 20_000 })
    await settled()
    expect(slackFor(connectionId, 'reminder')).toHaveLength(0)

    clock.advance(REMINDER_SECONDS)
    await vi.waitFor(() => expect(slackFor(connectionId, 'reminder')).toHaveLength(1), { timeout: 20_000 })
    expect(slackFor(connectionId, 'reminder')[0]!.raw).toContain('Reminder 1')

    await forceStatus(connectionId, 'active')
    await vi.waitFor(() => expect(slackFor(connectionId, 'recovery')).toHaveLength(1), { timeout: 20_000 })
    await settled()
    expect(slackFor(connectionId, 'alert')).toHaveLength(1)
    expect(slackFor(connectionId, 'reminder')).toHaveLength(1)
  })

  it('alerts once when an active connection has not synced for ALERT_STALE_SYNC_SECONDS', async () => {
    const connectionId = await onboard()
    await settled()
    clock.advance(STALE_SYNC_SECONDS)
    // The two destinations are delivered independently: wait for both before reading either.
    await vi.waitFor(
      () => {
        expect(jsonFor(connectionId, 'alert').map((b) => b.kind)).toEqual(['staleSync'])
        expect(slackFor(connectionId, 'alert')).toHaveLength(1)
      },
      { timeout: 20_000 },
    )
    expect(slackFor(connectionId, 'alert')[0]!.raw).toContain('no successful sync')
  })

  it('signs the JSON webhook with Service-Signature, verifiable with node:crypto', () => {
    expect(hook.received.length).toBeGreaterThan(0)
    for (const delivery of hook.received) {
      const header = String(delivery.headers['service-signature'])
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)
      expect(match).not.toBeNull()
      const expected = createHmac('sha256', WEBHOOK_SECRET).update(`${match![1]}.${delivery.raw}`).digest()
      expect(timingSafeEqual(expected, Buffer.from(match![2]!, 'hex'))).toBe(true)
      expect(delivery.headers['alert-id']).toBe((delivery.body as JsonBody).id)
    }
  })
})

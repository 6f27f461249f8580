import { randomBytes } from 'node:crypto'
import type { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HealthThresholds } from '../../src/alerts/index.js'
import { createVirtualClock } from '../../src/clock/index.js'
import { silentLogger } from '../../src/observability/index.js'
import {
  ALERT_DELIVERIES_QUEUE,
  createBackendQueue,
  type AlertDeliveryJobData,
  type QueueBackendConfig,
} from '../../src/queue/index.js'
import { createAlertPipeline } from '../../src/alert-delivery/index.js'
import {
  createConnectionHealthMonitor,
  type ConnectionHealthMonitor,
} from '../../src/connection-health/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

const START = new Date('2026-03-02T09:00:00.000Z')
const clock = createVirtualClock({ start: START, followRealTime: false })
const backend: QueueBackendConfig = {
  kind: 'redis',
  url: 'redis://127.0.0.1:6379',
  prefix: `test-health-monitor-${randomBytes(4).toString('hex')}`,
}
let database: TestDatabase
let queue: Queue<AlertDeliveryJobData>
let monitor: ConnectionHealthMonitor

const at = (minutes: number) => new Date(START.getTime() + minutes * 60_000).toISOString()

async function notices(connectionId: string) {
  return database.db
    .selectFrom('alert_notices')
    .select(['id', 'type', 'kind'])
    .where(({ eb, ref }) =>
      eb(
        eb.fn('jsonb_extract_path_text', [ref('subject'), eb.val('connection'), eb.val('id')]),
        '=',
        connectionId,
      ),
    )
    .orderBy('created_at')
    .execute()
}

beforeAll(async () => {
  database = await createTestDatabase('health_monitor')
  queue = createBackendQueue<AlertDeliveryJobData>(ALERT_DELIVERIES_QUEUE, backend)
  const alerts = createAlertPipeline({
    db: database.db,
    queue,
    config: {
      thresholds: HealthThresholds.parse({}),
      transferPoll: { initialSeconds: 10, factor: 2, maxSeconds: 900 },
      slack: null,
      webhook: null,
      routes: {},
    },
  })
  monitor = createConnectionHealthMonitor({
    db: database.db,
    clock,
    thresholds: HealthThresholds.parse({
      erroredAfterSeconds: 600,
      reminderSeconds: 3600,
      staleSyncSeconds: 86_400,
    }),
    alerts,
    logger: silentLogger,
  })
})

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined)
  await queue?.close()
  await database?.drop()
})

describe('connection health monitor', () => {
  it('applies concurrent observations of one connection one after the other (no lost update)', async () => {
    const connectionId = 'conn_concurrent'
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        monitor.observeStatusChange({
          connectionId,
          status: i % 2 === 0 ? 'pendingActivation' : 'active',
          errorCode: null,
          errorMessage: null,
          eventId: `evt_${String(i).padStart(2, '0')}`,
          occurredAt: at(i),
        }),
      ),
    )
    const row = await database.db
      .selectFrom('connection_health')
      .select('record')
      .where('connection_id', '=', connectionId)
      .executeTakeFirstOrThrow()
    expect(row.record.seen).toHaveLength(20)
    expect(row.record.status).toBe('active')
    expect(row.record.lastApplied).toEqual({ observedAt: at(19), eventId: 'evt_19' })
  })

  it('stores one alert for the same event observed concurrently many times', async () => {
    const connectionId = 'conn_duplicates'
    const event = {
      connectionId,
      status: 'revoked',
      errorCode: null,
      errorMessage: null,
      eventId: 'evt_revoked',
      occurredAt: at(0),
    }
    await Promise.all(Array.from({ length: 10 }, () => monitor.observeStatusChange(event)))
    expect((await notices(connectionId)).map((n) => [n.type, n.kind])).toEqual([['alert', 'revoked']])
  })

  it('makes one incident of a change read by a poll before its webhook, stamped a millisecond later', async () => {
    // Chaos seed 99479402 (Redis queue): one re-authentication episode alerted and recovered twice.
    const connectionId = 'conn_read_before_event'
    const later = (iso: string) => new Date(Date.parse(iso) + 1).toISOString()
    const read = (status: 'active' | 'reauthRequired', observedAt: string) =>
      monitor.observe(connectionId, { status, observedAt, source: 'poll' })
    const told = (status: string, enteredFrom: string, occurredAt: string, eventId: string) =>
      monitor.observeStatusChange({
        connectionId,
        status,
        enteredFrom,
        errorCode: null,
        errorMessage: null,
        eventId,
        occurredAt,
      })
    await read('active', at(0))
    for (const [start, id] of [
      [10, 'evt_first'],
      [30, 'evt_second'],
    ] as const) {
      await read('reauthRequired', at(start))
      await told('reauthRequired', 'active', later(at(start)), `${id}_reauth`)
      await read('active', at(start + 5))
      await told('active', 'reauthRequired', later(at(start + 5)), `${id}_active`)
    }
    expect((await notices(connectionId)).map((n) => [n.type, n.kind])).toEqual([
      ['alert', 'reauthRequired'],
      ['recovery', 'reauthRequired'],
      ['alert', 'reauthRequired'],
      ['recovery', 'reauthRequired'],
    ])
  })

  it('opens an errored incident on the tick once the connection has been errored past the threshold', async () => {
    const connectionId = 'conn_errored'
    await monitor.observe(connectionId, {
      status: 'errored',
      observedAt: clock.now().toISOString(),
      source: 'poll',
    })
    await monitor.tickAll()
    expect(await notices(connectionId)).toEqual([])
    clock.advance(600)
    await monitor.tickAll()
    expect((await notices(connectionId)).map((n) => [n.type, n.kind])).toEqual([['alert', 'errored']])
    clock.advance(3600)
    await monitor.tickAll()
    await monitor.tickAll()
    expect((await notices(connectionId)).map((n) => n.type)).toEqual(['alert', 'reminder'])
  })
})

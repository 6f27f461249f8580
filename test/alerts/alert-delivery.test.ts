import { randomBytes } from 'node:crypto'
import type { Queue, Worker } from 'bullmq'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseAlertEnv, type AlertConfig, type AlertNotice } from '../../src/alerts/index.js'
import { systemClock } from '../../src/clock/index.js'
import { silentLogger } from '../../src/observability/index.js'
import {
  ALERT_DELIVERIES_QUEUE,
  createBackendQueue,
  deliveryJobId,
  type AlertDeliveryJobData,
  type QueueBackendConfig,
} from '../../src/queue/index.js'
import {
  createAlertDeliveryWorker,
  createAlertPipeline,
  type AlertPipeline,
} from '../../src/alert-delivery/index.js'
import { startAlertEndpoint, type AlertEndpoint } from '../support/alert-endpoint.js'
import { TEST_DATABASE_URL, createTestDatabase, type TestDatabase } from '../support/test-database.js'

let database: TestDatabase
let slack: AlertEndpoint
let queue: Queue<AlertDeliveryJobData>
let worker: Worker
let pipeline: AlertPipeline
const backend: QueueBackendConfig = {
  kind: 'redis',
  url: 'redis://127.0.0.1:6379',
  prefix: `test-alert-delivery-${randomBytes(4).toString('hex')}`,
}

function notice(id: string, severity: AlertNotice['severity'] = 'critical'): AlertNotice {
  return {
    id,
    type: 'alert',
    severity,
    routeSeverity: severity,
    kind: 'reauthRequired',
    incidentId: id.split(':')[0] ?? null,
    subject: { connection: { id: 'conn_1', institutionName: 'Harbor', portalUrl: null } },
    title: `Harbor: alert ${id}`,
    text: 'text',
    action: 'do something',
    fields: [],
    occurredAt: '2026-03-02T09:00:00.000Z',
  }
}

async function deliveries(noticeId: string) {
  return database.db
    .selectFrom('alert_deliveries')
    .selectAll()
    .where('notice_id', '=', noticeId)
    .orderBy('sink')
    .execute()
}

/** Waits until the notice is recorded delivered to the log and to Slack. */
async function deliveredToBoth(noticeId: string) {
  await vi.waitFor(
    async () =>
      expect((await deliveries(noticeId)).map((d) => [d.sink, d.status])).toEqual([
        ['log', 'delivered'],
        ['slack', 'delivered'],
      ]),
    { timeout: 10_000, interval: 50 },
  )
}

beforeAll(async () => {
  database = await createTestDatabase('alert_delivery')
  slack = await startAlertEndpoint()
  const parsed = parseAlertEnv({ ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_ROUTES: 'info=log' })
  if (!parsed.ok) throw new Error(parsed.problems.join())
  const config: AlertConfig = parsed.config
  queue = createBackendQueue<AlertDeliveryJobData>(ALERT_DELIVERIES_QUEUE, backend)
  pipeline = createAlertPipeline({ db: database.db, queue, config })
  worker = createAlertDeliveryWorker({
    db: database.db,
    backend,
    config,
    logger: silentLogger,
    clock: systemClock,
    retryDelayMs: 50,
  }) as unknown as Worker
})

afterAll(async () => {
  await worker?.close()
  await queue?.obliterate({ force: true }).catch(() => undefined)
  await queue?.close()
  await slack?.close()
  await database?.drop()
})

describe('alert delivery pipeline', () => {
  it('delivers a notice once to Slack and the log, however often it is published', async () => {
    const id = 'inc-1:alert'
    await pipeline.publish([notice(id)])
    await pipeline.publish([notice(id)])
    await deliveredToBoth(id)
    await pipeline.publish([notice(id)])
    await pipeline.requeueStale(new Date(Date.now() + 60_000))
    const stored = await database.db.selectFrom('alert_notices').select('id').where('id', '=', id).execute()
    expect(stored).toHaveLength(1)
    expect(slack.received.filter((r) => JSON.stringify(r.body).includes(id))).toHaveLength(1)
  })

  it('sends once when recording the delivery fails after the sink took the notice', async () => {
    const id = 'inc-record-fails:alert'
    // A fault in the database, once: the first write of this delivery as delivered raises (a sequence is not rolled
    // back with the failed statement, so the second try passes).
    await sql`create sequence record_fault`.execute(database.db)
    await sql`
      create function record_fault() returns trigger language plpgsql as $$
      begin
        if nextval('record_fault') = 1 then raise exception 'injected: the session went away'; end if;
        return new;
      end $$
    `.execute(database.db)
    await sql`
      create trigger record_fault before update on alert_deliveries for each row
      when (new.status = 'delivered' and new.notice_id = ${sql.lit(id)} and new.sink = 'slack')
      execute function record_fault()
    `.execute(database.db)
    await pipeline.publish([notice(id)])
    await deliveredToBoth(id)
    expect(slack.received.filter((r) => JSON.stringify(r.body).includes(id))).toHaveLength(1)
  })

  it('leaves a delivery another worker is still sending to that worker, and finds it delivered afterwards', async () => {
    const id = 'inc-taken-over:alert'
    const ref = { noticeId: id, sink: 'slack' }
    // Worker A sends it (its job lock lapsed, so BullMQ handed the job to this worker): A holds the delivery's lock.
    const a = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await a.connect()
    try {
      await a.query('begin')
      await a.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `bankrec:${deliveryJobId(ref)}`,
      ])
      await pipeline.publish([notice(id)])
      await vi.waitFor(
        async () => expect((await queue.getJob(deliveryJobId(ref)))?.attemptsMade).toBeGreaterThanOrEqual(1),
        { timeout: 10_000, interval: 20 },
      )
      expect(slack.received.filter((r) => JSON.stringify(r.body).includes(id))).toHaveLength(0)
      // A's send went through and A records it, then lets go.
      await database.db
        .updateTable('alert_deliveries')
        .set({ status: 'delivered' })
        .where('notice_id', '=', id)
        .where('sink', '=', 'slack')
        .execute()
      await a.query('commit')
    } finally {
      await a.end()
    }
    await vi.waitFor(
      async () => expect((await queue.getJob(deliveryJobId(ref)))?.returnvalue).toBe('skipped'),
      { timeout: 10_000, interval: 20 },
    )
    expect(slack.received.filter((r) => JSON.stringify(r.body).includes(id))).toHaveLength(0)
  })

  it('routes a severity by ALERT_ROUTES: info goes to the log only', async () => {
    const id = 'info-1:paused'
    await pipeline.publish([notice(id, 'info')])
    await vi.waitFor(
      async () =>
        expect((await deliveries(id)).map((d) => [d.sink, d.status])).toEqual([['log', 'delivered']]),
      { timeout: 10_000, interval: 50 },
    )
  })

  it('retries a sink that answers 5xx and records the attempts', async () => {
    const id = 'inc-2:alert'
    slack.answerWith(503, 500)
    await pipeline.publish([notice(id)])
    await vi.waitFor(
      async () => {
        const slackDelivery = (await deliveries(id)).find((d) => d.sink === 'slack')
        expect(slackDelivery).toMatchObject({ status: 'delivered', attempts: 3 })
      },
      { timeout: 10_000, interval: 50 },
    )
    expect(slack.received.filter((r) => JSON.stringify(r.body).includes(id))).toHaveLength(1)
  })

  it('gives up at once on a 4xx answer, with an error that does not carry the webhook URL', async () => {
    const id = 'inc-3:alert'
    slack.answerWith(404)
    await pipeline.publish([notice(id)])
    await vi.waitFor(
      async () => {
        const slackDelivery = (await deliveries(id)).find((d) => d.sink === 'slack')
        expect(slackDelivery).toMatchObject({ status: 'failed', attempts: 1 })
        expect(slackDelivery?.last_error).toContain('404')
        expect(slackDelivery?.last_error).not.toContain('secret-token')
      },
      { timeout: 10_000, interval: 50 },
    )
  })
})

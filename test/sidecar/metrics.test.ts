import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOK_EVENTS_QUEUE, inboxKeys } from '../../src/queue/index.js'
import { createSidecarApp } from '../../src/sidecar/http-app.js'
import { persistenceWarning, readRedisPersistence } from '../../src/sidecar/redis-persistence.js'
import { MATCH_RATE_GAUGE, OPEN_INCIDENTS_GAUGE } from '../../src/sidecar/index.js'
import { createDatabase } from '../../src/store/index.js'
import { signed, testEvent } from '../receiver/deliveries.js'
import { API_TOKEN, WEBHOOK_SECRET, sampleValue, startTestSidecar } from './sidecar-fixture.js'

// No worker role: delivered events stay waiting, so depth and age are known exactly.
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let redis: Redis
let view: Queue

beforeAll(async () => {
  sidecar = await startTestSidecar('metrics', ['receiver', 'api'])
  redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null })
  view = new Queue(WEBHOOK_EVENTS_QUEUE, { connection: redis, prefix: sidecar.prefix })
})

afterAll(async () => {
  await sidecar?.close()
  await view?.obliterate({ force: true })
  await view?.close()
  redis?.disconnect()
  await sidecar?.drop()
})

async function deliver(body: string, secret = WEBHOOK_SECRET) {
  const delivery = signed(body, secret)
  return (await fetch(`${sidecar.url}/webhooks`, { method: 'POST', ...delivery })).status
}

async function scrape(): Promise<{ text: string; before: number; after: number }> {
  const before = Date.now()
  const answer = await fetch(`${sidecar.url}/metrics`)
  const text = await answer.text()
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain/)
  return { text, before, after: Date.now() }
}

describe('GET /metrics', () => {
  it('counts webhook deliveries by outcome and reason', async () => {
    const first = testEvent()
    expect(await deliver(JSON.stringify(first))).toBe(202)
    expect(await deliver(JSON.stringify(testEvent()))).toBe(202)
    expect(await deliver(JSON.stringify(first))).toBe(200)
    expect(await deliver(JSON.stringify(testEvent()), 'whsec_not_ours')).toBe(401)

    const { text } = await scrape()
    expect(sampleValue(text, 'bankrec_receiver_deliveries_total', { outcome: 'queued', reason: 'ok' })).toBe(
      2,
    )
    expect(
      sampleValue(text, 'bankrec_receiver_deliveries_total', { outcome: 'duplicate', reason: 'duplicate' }),
    ).toBe(1)
    expect(
      sampleValue(text, 'bankrec_receiver_deliveries_total', {
        outcome: 'rejected',
        reason: 'signature_mismatch',
      }),
    ).toBe(1)
  })

  it('reports queue depth per state and the age of the oldest waiting job', async () => {
    const waiting = await view.getWaiting()
    expect(waiting).toHaveLength(2)
    const oldest = Math.min(...waiting.map((job) => job.timestamp))

    const { text, before, after } = await scrape()
    expect(sampleValue(text, 'bankrec_queue_jobs', { queue: 'webhook-events', state: 'waiting' })).toBe(2)
    expect(sampleValue(text, 'bankrec_queue_jobs', { queue: 'connection-sync', state: 'waiting' })).toBe(0)
    const age = sampleValue(text, 'bankrec_queue_oldest_waiting_seconds', { queue: 'webhook-events' })!
    expect(age).toBeGreaterThanOrEqual((before - oldest) / 1000)
    expect(age).toBeLessThanOrEqual((after - oldest) / 1000)
    expect(sampleValue(text, 'bankrec_queue_oldest_waiting_seconds', { queue: 'connection-sync' })).toBe(0)
    // Issue 28: every queue of the catalogue is reported, the app-events queue's retries among them.
    expect(sampleValue(text, 'bankrec_queue_jobs', { queue: 'app-events', state: 'waiting' })).toBe(0)
    expect(sampleValue(text, 'bankrec_queue_oldest_waiting_seconds', { queue: 'app-events' })).toBe(0)
  })

  it('reports the events waiting in the inbox for a worker to forward them (a storm leaves them there)', async () => {
    const { inbox } = inboxKeys(sidecar.prefix)
    expect(sampleValue((await scrape()).text, 'bankrec_webhook_inbox_events')).toBe(0)
    await redis.rpush(inbox, 'an entry waiting for a worker')
    expect(sampleValue((await scrape()).text, 'bankrec_webhook_inbox_events')).toBe(1)
    await redis.del(inbox)
  })

  it('reports the sync lag of each connection from its last successful sync', async () => {
    const { db } = sidecar.context.store
    const lastSuccess = new Date(sidecar.context.clock.now().getTime() - 600_000)
    await db
      .insertInto('sync_streams')
      .values([
        {
          connection_id: 'conn_synced',
          cursor: 'c1',
          head_cursor: 'c0',
          bootstrap_state: 'streaming',
          last_success_at: lastSuccess,
          updated_at: lastSuccess,
        },
        {
          connection_id: 'conn_never_synced',
          cursor: null,
          head_cursor: 'c0',
          bootstrap_state: 'backfilling',
          last_success_at: null,
          updated_at: lastSuccess,
        },
      ])
      .execute()

    const { text, before, after } = await scrape()
    const lag = sampleValue(text, 'bankrec_sync_lag_seconds', { connection_id: 'conn_synced' })!
    expect(lag).toBeGreaterThanOrEqual((before - lastSuccess.getTime()) / 1000)
    expect(lag).toBeLessThanOrEqual((after - lastSuccess.getTime()) / 1000)
    expect(
      sampleValue(text, 'bankrec_sync_lag_seconds', { connection_id: 'conn_never_synced' }),
    ).toBeUndefined()
  })

  it('reads open incidents and the match rate from whatever feeds them', async () => {
    const unfed = await scrape()
    expect(unfed.text).toContain(`# TYPE ${OPEN_INCIDENTS_GAUGE} gauge`)
    expect(sampleValue(unfed.text, MATCH_RATE_GAUGE)).toBeNaN()

    let open = 2
    sidecar.context.metrics.feed(OPEN_INCIDENTS_GAUGE, () => [
      { labels: { kind: 'reauthRequired' }, value: open },
      { labels: { kind: 'staleSync' }, value: 1 },
    ])
    sidecar.context.metrics.feed(MATCH_RATE_GAUGE, async () => 0.75)
    let { text } = await scrape()
    expect(sampleValue(text, OPEN_INCIDENTS_GAUGE, { kind: 'reauthRequired' })).toBe(2)
    expect(sampleValue(text, OPEN_INCIDENTS_GAUGE, { kind: 'staleSync' })).toBe(1)
    expect(sampleValue(text, MATCH_RATE_GAUGE)).toBe(0.75)

    open = 0
    ;({ text } = await scrape())
    expect(sampleValue(text, OPEN_INCIDENTS_GAUGE, { kind: 'reauthRequired' })).toBe(0)
  })

  it('keeps serving the other metrics when one source fails', async () => {
    sidecar.context.metrics.registerGauge({
      name: 'bankrec_test_broken',
      help: 'a source that throws',
      collect: () => {
        throw new Error('source down')
      },
    })
    const answer = await fetch(`${sidecar.url}/metrics`)
    expect(answer.status).toBe(200)
    const text = await answer.text()
    expect(sampleValue(text, 'bankrec_test_broken')).toBeNaN()
    expect(sampleValue(text, 'bankrec_queue_jobs', { queue: 'webhook-events', state: 'waiting' })).toBe(2)
  })
})

describe('GET /metrics with METRICS_TOKEN', () => {
  it('answers 401 without the token or with another one, and the metrics with it', async () => {
    const token = 'metrics-token-0123456789'
    const config = { ...sidecar.context.config, METRICS_TOKEN: token }
    const app = createSidecarApp({ ...sidecar.context, config }, { roles: new Set(['api']) })
    expect((await request(app).get('/metrics')).status).toBe(401)
    expect((await request(app).get('/metrics').set('authorization', `Bearer ${API_TOKEN}`)).status).toBe(401)
    const scraped = await request(app).get('/metrics').set('authorization', `Bearer ${token}`)
    expect(scraped.status).toBe(200)
    expect(scraped.text).toContain('bankrec_receiver_deliveries_total')
  })
})

describe('GET /readyz', () => {
  it('says which dependency is down in generic words, never the raw error (hosts, ports, users)', async () => {
    const unreachable = createDatabase({
      connectionString: 'postgres://bankrec_reader@127.0.0.1:9/secret_db_name',
      schema: 'bankrec',
    })
    try {
      const context = { ...sidecar.context, store: { ...sidecar.context.store, db: unreachable.db } }
      const answer = await request(createSidecarApp(context, { roles: new Set(['api']) })).get('/readyz')
      expect(answer.status).toBe(503)
      expect(answer.body).toMatchObject({ status: 'not_ready', checks: { database: 'unavailable' } })
      expect(answer.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|bankrec_reader|secret_db_name/)
    } finally {
      await unreachable.db.destroy()
    }
  })
})

describe('a Redis that keeps nothing across a restart', () => {
  it('is named in /readyz and on every dashboard page when neither AOF nor RDB snapshots are on', async () => {
    // The machines' Redis runs with --save "" --appendonly no; a persistent one must bring no warning.
    const persistence = await readRedisPersistence('redis://127.0.0.1:6379')
    const expected = persistenceWarning(persistence)
    expect(sidecar.context.warnings).toEqual(expected ? [expected] : [])
    const ready = (await request(sidecar.url).get('/readyz')).body as { warnings?: string[] }
    expect(ready.warnings).toEqual(expected ? [expected] : undefined)
    const page = await request(sidecar.url).get('/dashboard').set('authorization', `Bearer ${API_TOKEN}`)
    if (expected) expect(page.text).toContain('lost if Redis restarts')
    else expect(page.text).not.toContain('lost if Redis restarts')
    const signIn = await request(sidecar.url).get('/dashboard')
    expect(signIn.status).toBe(401)
    expect(signIn.text).not.toContain('lost if Redis restarts')
  })
})

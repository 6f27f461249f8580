import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { WEBHOOK_EVENTS_QUEUE } from '../../src/queue/index.js'
import { saveWebhookRegistration } from '../../src/store/index.js'
import { signed } from '../receiver/deliveries.js'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'
import { API_TOKEN, sampleValue, startTestSidecar } from './sidecar-fixture.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let connectionId: string

async function api(path: string): Promise<any> {
  const response = await fetch(`${sidecar.url}${path}`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
  expect(response.status).toBe(200)
  return path.startsWith('/metrics') ? response.text() : response.json()
}

/** Queues a delivery as the receiver does once a signature verified, whatever the body's shape. */
async function deliver(eventId: string, event: unknown): Promise<void> {
  const queue = sidecar.context.queues.find((q) => q.name === WEBHOOK_EVENTS_QUEUE)!
  await queue.add('unknown', { event, receivedAt: new Date().toISOString() } as never, { jobId: eventId })
}

async function requested(): Promise<number> {
  const row = await sidecar.context.store.db
    .selectFrom('sync_requests')
    .select('requested')
    .where('connection_id', '=', connectionId)
    .executeTakeFirst()
  return Number(row?.requested ?? 0)
}

beforeAll(async () => {
  sidecar = await startTestSidecar('uninterpretable', ['receiver', 'worker', 'api'])
  connectionId = (await onboardSandboxConnection(sidecar.context.bank)).id
  await vi.waitFor(async () => expect(await requested()).toBeGreaterThan(0), { timeout: 20_000 })
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('a delivery the worker cannot interpret', () => {
  it('is recorded, listed as an exception, counted, alerted once per problem and answered by a safety-net sync', async () => {
    const before = await requested()
    await deliver('odd-1', { id: 'odd-1', what: 'no type at all' })
    await deliver('odd-2', { id: 'odd-2', nested: { list: [1, 2] } })
    await deliver('odd-3', {
      id: 'odd-3',
      type: 'transactions.sync_available',
      data: { connectionId: randomUUID() },
    })
    await vi.waitFor(
      async () => {
        const rows = await sidecar.context.store.db
          .selectFrom('uninterpretable_events')
          .select('event_id')
          .execute()
        expect(rows).toHaveLength(3)
      },
      { timeout: 20_000, interval: 100 },
    )

    const metrics = await api('/metrics')
    expect(sampleValue(metrics, 'bankrec_uninterpretable_events', { problem: 'no_event_type' })).toBe(2)
    expect(sampleValue(metrics, 'bankrec_uninterpretable_events', { problem: 'unknown_connection' })).toBe(1)

    const exceptions = (await api('/api/exceptions?type=uninterpretable_event')).data
    expect(exceptions.map((e: any) => e.key)).toEqual([
      'uninterpretable_event:odd-1',
      'uninterpretable_event:odd-2',
      'uninterpretable_event:odd-3',
    ])
    expect(exceptions[0].reasons[0]).toContain('Webhook event odd-1 could not be interpreted')
    expect(exceptions[0].reasons[1]).toBe('bankrec requested a sync of every connection.')

    const alerts = (await api('/api/alerts?limit=100')).data.filter(
      (a: any) => a.kind === 'uninterpretable_event',
    )
    expect(alerts.map((a: any) => a.id).sort()).toEqual([
      'uninterpretable-event:no_event_type',
      'uninterpretable-event:unknown_connection',
    ])
    // The body is kept in the store, never put in an alert.
    expect(JSON.stringify(alerts)).not.toContain('no type at all')

    await vi.waitFor(async () => expect(await requested()).toBeGreaterThan(before), { timeout: 20_000 })

    const login = await fetch(`${sidecar.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sidecar.url },
      body: new URLSearchParams({ token: API_TOKEN, next: '/dashboard' }).toString(),
    })
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!
    const page = await (
      await fetch(`${sidecar.url}/dashboard/exceptions?type=uninterpretable_event`, { headers: { cookie } })
    ).text()
    expect(page).toContain('uninterpretable event (3)')
    expect(page).toContain('data-key="uninterpretable_event:odd-2"')
  }, 60_000)

  it('through the receiver: a signed delivery of any JSON shape is answered 2xx and handled the same way', async () => {
    const secret = 'whsec_uninterpretable_e2e_3f9a'
    const { db, secretBox } = sidecar.context.store
    await saveWebhookRegistration(db, secretBox, {
      id: 'wh_odd_shapes',
      url: 'https://bankrec.example/odd',
      secret,
    })
    const post = (body: unknown) =>
      fetch(`${sidecar.url}/webhooks`, { method: 'POST', ...signed(JSON.stringify(body), secret) })
    const before = await requested()
    // Only a connection id, in a nesting the seed never showed: accepted and turned into that connection's sync.
    expect(
      (
        await post({
          id: 'e2e-nested',
          type: 'transactions.sync_available',
          data: { connection: { id: connectionId } },
        })
      ).status,
    ).toBe(202)
    await vi.waitFor(async () => expect(await requested()).toBeGreaterThan(before), { timeout: 20_000 })
    // No id, no type: accepted, named by its body's digest, recorded as uninterpretable.
    const shapeless = { what: 'a shape nobody wrote down', at: 1 }
    expect((await post(shapeless)).status).toBe(202)
    await vi.waitFor(
      async () => {
        const rows = await db.selectFrom('uninterpretable_events').select('event_id').execute()
        expect(rows.map((row) => row.event_id)).toContainEqual(
          expect.stringMatching(/^body-sha256-[0-9a-f]{64}$/),
        )
      },
      { timeout: 20_000, interval: 100 },
    )
    // The same body again is a duplicate of the first, not a second event.
    const again = await post(shapeless)
    expect(again.status).toBe(200)
    expect(await again.json()).toMatchObject({ status: 'duplicate' })
    const rows = await db.selectFrom('uninterpretable_events').select('event_id').execute()
    expect(rows.filter((row) => row.event_id.startsWith('body-sha256-'))).toHaveLength(1)
  }, 60_000)
})

import { createHmac } from 'node:crypto'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MAX_DELIVERY_ATTEMPTS, retryDelaySeconds } from '../../src/sandbox/webhook-dispatcher.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

/** Checks a Service-Signature the way a receiver without our library would: node:crypto only. */
function signatureMatches(header: string | string[] | undefined, body: string, secret: string): boolean {
  const parts = Object.fromEntries(
    String(header)
      .split(',')
      .map((part) => part.split('=') as [string, string]),
  )
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest('hex')
  return parts.v1 === expected
}

let harness: SandboxHarness
let receiver: WebhookReceiver

beforeAll(async () => {
  harness = await startSandbox()
  receiver = await startWebhookReceiver()
})
afterAll(async () => {
  await harness.close()
  await receiver.close()
})
beforeEach(() => {
  harness.sandbox.reset()
  receiver.received.length = 0
  receiver.answerWith([])
})

async function register(body: Record<string, unknown> = {}, key?: string) {
  const response = await harness.request('POST', '/v1/webhooks', {
    key,
    body: { url: receiver.url, events: ['connection.status_changed'], ...body },
  })
  expect(response.status).toBe(201)
  return response.body
}

async function deliveries(query = '') {
  const response = await harness.request('GET', `/_sandbox/webhooks/deliveries${query}`, { key: null })
  expect(response.status).toBe(200)
  return response.body.data as any[]
}

describe('webhook registrations', () => {
  it('creates a registration with 201, active by default, returning the full whsec_ secret', async () => {
    const now = harness.sandbox.clock.now().toISOString()
    const created = await register({ metadata: { team: 'treasury' } })
    expect(created).toMatchObject({
      url: receiver.url,
      events: ['connection.status_changed'],
      active: true,
      metadata: { team: 'treasury' },
      createdAt: now,
      updatedAt: now,
    })
    expect(created.id).toMatch(/^wh_/)
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/)
  })

  it('masks the secret on every later read, keeping only its last four characters', async () => {
    const created = await register()
    const masked = `whsec_…${created.secret.slice(-4)}`
    const got = await harness.request('GET', `/v1/webhooks/${created.id}`)
    const listed = await harness.request('GET', '/v1/webhooks')
    const patched = await harness.request('PATCH', `/v1/webhooks/${created.id}`, { body: { active: false } })
    expect(got.body.secret).toBe(masked)
    expect(listed.body.data[0].secret).toBe(masked)
    expect(patched.body.secret).toBe(masked)
    expect(JSON.stringify([got.body, listed.body, patched.body])).not.toContain(created.secret)
  })

  it('refuses a url that is not https, with a validation error naming body.url', async () => {
    for (const url of ['ftp://example.com/hook', 'not a url', 'https://']) {
      const response = await harness.request('POST', '/v1/webhooks', { body: { url, events: ['test'] } })
      expect(response.status, url).toBe(400)
      expect(response.body.error).toMatchObject({ code: 'validation_error' })
      expect(response.body.error.details.map((d: any) => d.path)).toContain('body.url')
    }
  })

  it('allows http:// only on a loopback host when http webhooks are allowed', async () => {
    for (const url of ['http://127.0.0.1:9/h', 'http://localhost:9/h', 'http://[::1]:9/h']) {
      const response = await harness.request('POST', '/v1/webhooks', { body: { url, events: ['test'] } })
      expect(response.status, url).toBe(201)
    }
    const remote = await harness.request('POST', '/v1/webhooks', {
      body: { url: 'http://example.com/h', events: ['test'] },
    })
    expect(remote.status).toBe(400)
  })

  it('refuses http:// even on loopback without allowHttpWebhooks', async () => {
    const strict = await startSandbox({ allowHttpWebhooks: false })
    try {
      const http = await strict.request('POST', '/v1/webhooks', {
        body: { url: receiver.url, events: ['test'] },
      })
      expect(http.status).toBe(400)
      expect(http.body.error.message).toContain('--allow-http-webhooks')
      const https = await strict.request('POST', '/v1/webhooks', {
        body: { url: 'https://hooks.example.com/bank', events: ['test'] },
      })
      expect(https.status).toBe(201)
      const patch = await strict.request('PATCH', `/v1/webhooks/${https.body.id}`, {
        body: { url: receiver.url },
      })
      expect(patch.status).toBe(400)
    } finally {
      await strict.close()
    }
  })

  it('refuses a url longer than 2048 characters and accepts one of exactly 2048', async () => {
    const base = 'https://hooks.example.com/'
    const exact = base + 'a'.repeat(2048 - base.length)
    const ok = await harness.request('POST', '/v1/webhooks', { body: { url: exact, events: ['test'] } })
    expect(ok.status).toBe(201)
    const long = await harness.request('POST', '/v1/webhooks', {
      body: { url: exact + 'a', events: ['test'] },
    })
    expect(long.status).toBe(400)
    const patch = await harness.request('PATCH', `/v1/webhooks/${ok.body.id}`, { body: { url: exact + 'a' } })
    expect(patch.status).toBe(400)
  })

  it('refuses an unknown event type and an empty event list', async () => {
    const unknown = await harness.request('POST', '/v1/webhooks', {
      body: { url: receiver.url, events: ['invoice.paid'] },
    })
    const empty = await harness.request('POST', '/v1/webhooks', { body: { url: receiver.url, events: [] } })
    expect(unknown.status).toBe(400)
    expect(empty.status).toBe(400)
  })

  it('PATCH leaves omitted fields unchanged and changes only the given ones', async () => {
    const created = await register({ metadata: { a: 1 } })
    await harness.sandbox.advance(60)
    const later = harness.sandbox.clock.now().toISOString()
    const patched = await harness.request('PATCH', `/v1/webhooks/${created.id}`, {
      body: { events: ['test', 'transactions.sync_available'] },
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      id: created.id,
      url: created.url,
      active: true,
      metadata: { a: 1 },
      events: ['test', 'transactions.sync_available'],
      createdAt: created.createdAt,
      updatedAt: later,
    })
  })

  it('PATCH with metadata null clears the metadata', async () => {
    const created = await register({ metadata: { a: 1 } })
    const patched = await harness.request('PATCH', `/v1/webhooks/${created.id}`, { body: { metadata: null } })
    expect(patched.status).toBe(200)
    expect(patched.body.metadata).toBeUndefined()
    const got = await harness.request('GET', `/v1/webhooks/${created.id}`)
    expect(got.body.metadata).toBeUndefined()
  })

  it('PATCH validates the fields it is given', async () => {
    const created = await register()
    const badActive = await harness.request('PATCH', `/v1/webhooks/${created.id}`, {
      body: { active: 'yes' },
    })
    const badEvents = await harness.request('PATCH', `/v1/webhooks/${created.id}`, { body: { events: [] } })
    expect(badActive.status).toBe(400)
    expect(badEvents.status).toBe(400)
  })

  it('DELETE answers 204, after which the registration is not found', async () => {
    const created = await register()
    const deleted = await harness.request('DELETE', `/v1/webhooks/${created.id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.body).toBeUndefined()
    const got = await harness.request('GET', `/v1/webhooks/${created.id}`)
    expect(got.status).toBe(404)
    expect(got.body.error.code).toBe('not_found')
    const again = await harness.request('DELETE', `/v1/webhooks/${created.id}`)
    expect(again.status).toBe(404)
  })

  it('lists newest first in the list envelope, paged by cursor and limit', async () => {
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await register()).id)
    const first = await harness.request('GET', '/v1/webhooks?limit=2')
    expect(first.body.data.map((w: any) => w.id)).toEqual([ids[2], ids[1]])
    expect(first.body.pagination.hasMore).toBe(true)
    expect(first.body.meta.requestId).toBe(first.headers.get('request-id'))
    const second = await harness.request(
      'GET',
      `/v1/webhooks?limit=2&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`,
    )
    expect(second.body.data.map((w: any) => w.id)).toEqual([ids[0]])
    expect(second.body.pagination).toEqual({ hasMore: false, nextCursor: null })
  })

  it('refuses a malformed cursor and a limit out of 1–500', async () => {
    const cursor = await harness.request('GET', '/v1/webhooks?cursor=garbage')
    expect(cursor.status).toBe(400)
    expect(cursor.body.error.code).toBe('invalid_cursor')
    for (const limit of ['0', '501', 'x']) {
      const response = await harness.request('GET', `/v1/webhooks?limit=${limit}`)
      expect(response.status, limit).toBe(400)
      expect(response.body.error.code).toBe('validation_error')
    }
  })
})

describe('webhook deliveries', () => {
  it('delivers a test event to that registration only, as a signed JSON POST', async () => {
    const target = await register({ events: ['connection.status_changed'] })
    await register({ events: ['test'] })
    const now = harness.sandbox.clock.now().toISOString()
    const triggered = await harness.request('POST', `/v1/webhooks/${target.id}/test`)
    expect(triggered.status).toBe(202)
    expect(triggered.body.eventId).toMatch(/^evt_/)

    await harness.sandbox.flushWebhooks()

    expect(receiver.received).toHaveLength(1)
    const [delivery] = receiver.received
    expect(delivery!.headers['content-type']).toBe('application/json')
    expect(delivery!.event).toEqual({
      id: triggered.body.eventId,
      type: 'test',
      createdAt: now,
      apiVersion: 'v1',
      data: { webhookId: target.id },
    })
    expect(signatureMatches(delivery!.headers['service-signature'], delivery!.body, target.secret)).toBe(true)
  })

  it('signs with the real time of sending, not the virtual clock', async () => {
    const target = await register()
    await harness.sandbox.advance(86_400 * 30)
    await harness.request('POST', `/v1/webhooks/${target.id}/test`)
    await harness.sandbox.flushWebhooks()
    const header = String(receiver.received[0]!.headers['service-signature'])
    const t = Number(/^t=(\d+),v1=[0-9a-f]{64}$/.exec(header)![1])
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(60)
  })

  it('delivers an event only to active registrations of the organization subscribed to its type', async () => {
    const subscribed = await register({ events: ['connection.status_changed', 'test'] })
    const otherType = await register({ events: ['transactions.sync_available'] })
    const inactive = await register({ events: ['connection.status_changed'], active: false })
    const otherOrg = await register({}, harness.keyFor('other organization'))

    harness.sandbox.ctx.emitEvent('org_main', 'connection.status_changed', {
      connectionId: 'c1',
      entityId: 'e1',
      previousStatus: 'active',
      status: 'paused',
      errorCode: null,
      errorMessage: null,
    })
    await harness.sandbox.flushWebhooks()

    expect(receiver.received).toHaveLength(1)
    expect(
      signatureMatches(
        receiver.received[0]!.headers['service-signature'],
        receiver.received[0]!.body,
        subscribed.secret,
      ),
    ).toBe(true)
    for (const other of [otherType, inactive, otherOrg]) {
      expect(await deliveries(`?webhookId=${other.id}`)).toEqual([])
    }
  })

  it('delivers the status changes of onboarding in order, and transactions.sync_available after the first sync', async () => {
    const statuses = await register({ events: ['connection.status_changed'] })
    const syncs = await register({ events: ['transactions.sync_available'] })
    const { connection } = await connectReadyBank(harness)
    await harness.sandbox.flushWebhooks()

    const received = receiver.received.map((r) => r.event)
    const changes = received.filter((e) => e.type === 'connection.status_changed')
    expect(changes[0].data).toMatchObject({ connectionId: connection.id, previousStatus: null })
    expect(changes.at(-1).data).toMatchObject({ connectionId: connection.id, status: 'active' })
    for (let i = 1; i < changes.length; i++)
      expect(changes[i].data.previousStatus).toBe(changes[i - 1].data.status)
    expect(received.filter((e) => e.type === 'transactions.sync_available')[0].data).toEqual({
      connectionId: connection.id,
      entityId: connection.entityId,
    })
    for (const delivery of receiver.received) {
      const secret = delivery.event.type === 'connection.status_changed' ? statuses.secret : syncs.secret
      expect(signatureMatches(delivery.headers['service-signature'], delivery.body, secret)).toBe(true)
    }
  })

  it('gives every event a fresh evt_ id shared by all its deliveries', async () => {
    const a = await register()
    const b = await register()
    harness.sandbox.ctx.emitEvent('org_main', 'connection.status_changed', { connectionId: 'c1' })
    harness.sandbox.ctx.emitEvent('org_main', 'connection.status_changed', { connectionId: 'c2' })
    await harness.sandbox.flushWebhooks()
    const ids = receiver.received.map((r) => r.event.id)
    expect(ids).toHaveLength(4)
    expect(new Set(ids).size).toBe(2)
    expect((await deliveries(`?webhookId=${a.id}`)).map((d) => d.eventId)).toEqual(
      (await deliveries(`?webhookId=${b.id}`)).map((d) => d.eventId),
    )
  })

  it('retries after a non-2xx answer with exponential back-off on the virtual clock', async () => {
    const target = await register()
    receiver.answerWith([500, 503])
    await harness.request('POST', `/v1/webhooks/${target.id}/test`)

    await harness.sandbox.advance(0)
    expect(receiver.received).toHaveLength(1)
    expect(await deliveries()).toMatchObject([{ status: 'pending', attempts: 1, lastStatusCode: 500 }])

    await harness.sandbox.advance(retryDelaySeconds(1) - 0.5)
    expect(receiver.received).toHaveLength(1)
    await harness.sandbox.advance(0.5)
    expect(receiver.received).toHaveLength(2)

    await harness.sandbox.advance(retryDelaySeconds(2) - 0.5)
    expect(receiver.received).toHaveLength(2)
    await harness.sandbox.advance(0.5)
    expect(receiver.received).toHaveLength(3)
    expect(await deliveries()).toMatchObject([{ status: 'delivered', attempts: 3, lastStatusCode: 200 }])
    expect(new Set(receiver.received.map((r) => r.event.id)).size).toBe(1)
  })

  it('retries after a network error and marks the delivery failed after the last attempt', async () => {
    const dead = await startWebhookReceiver()
    await dead.close()
    const target = await register({ url: dead.url })
    await harness.request('POST', `/v1/webhooks/${target.id}/test`)
    for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
      await harness.sandbox.advance(attempt === 1 ? 0 : retryDelaySeconds(attempt - 1))
      expect((await deliveries())[0].attempts).toBe(attempt)
    }
    expect(await deliveries()).toMatchObject([
      { status: 'failed', attempts: MAX_DELIVERY_ATTEMPTS, lastStatusCode: null },
    ])
    await harness.sandbox.flushWebhooks()
    expect((await deliveries())[0].attempts).toBe(MAX_DELIVERY_ATTEMPTS)
  })

  it('flush attempts pending deliveries at once, ignoring back-off', async () => {
    const target = await register()
    receiver.answerWith([500])
    await harness.request('POST', `/v1/webhooks/${target.id}/test`)
    await harness.sandbox.advance(0)
    expect(receiver.received).toHaveLength(1)
    const flushed = await harness.request('POST', '/_sandbox/webhooks/flush', { key: null })
    expect(flushed.status).toBe(200)
    expect(flushed.body).toMatchObject({ attempted: 1, delivered: 1, pending: 0 })
    expect(receiver.received).toHaveLength(2)
  })

  it('ends the pending deliveries of a registration that is deleted or deactivated, sending nothing more', async () => {
    const deleted = await register()
    const deactivated = await register()
    receiver.answerWith([500, 500])
    harness.sandbox.ctx.emitEvent('org_main', 'connection.status_changed', { connectionId: 'c1' })
    await harness.sandbox.advance(0)
    expect((await deliveries()).map((d) => d.status)).toEqual(['pending', 'pending'])

    await harness.request('DELETE', `/v1/webhooks/${deleted.id}`)
    await harness.request('PATCH', `/v1/webhooks/${deactivated.id}`, { body: { active: false } })
    await harness.sandbox.advance(retryDelaySeconds(1))
    await harness.sandbox.flushWebhooks()
    expect(receiver.received).toHaveLength(2)
    expect((await deliveries()).map((d) => d.status)).toEqual(['failed', 'failed'])
  })

  it('refuses a test event for an inactive registration with 409', async () => {
    const target = await register({ active: false })
    const response = await harness.request('POST', `/v1/webhooks/${target.id}/test`)
    expect(response.status).toBe(409)
    expect(response.body.error.code).toBe('webhook_inactive')
  })

  it('shows deliveries for inspection without the secret or the body', async () => {
    const target = await register()
    await harness.request('POST', `/v1/webhooks/${target.id}/test`)
    await harness.sandbox.flushWebhooks()
    const response = await harness.request('GET', '/_sandbox/webhooks/deliveries', { key: null })
    expect(response.body.data).toEqual([
      {
        id: expect.stringMatching(/^dlv_/),
        eventId: expect.stringMatching(/^evt_/),
        type: 'test',
        webhookId: target.id,
        attempts: 1,
        status: 'delivered',
        lastStatusCode: 200,
        nextAttemptAt: null,
      },
    ])
    expect(JSON.stringify(response.body)).not.toContain(target.secret)
  })
})

describe('when the sandbox is listening', () => {
  let receiverForTicker: WebhookReceiver
  beforeEach(async () => {
    receiverForTicker = await startWebhookReceiver()
  })
  afterEach(() => receiverForTicker.close())

  it('sends due deliveries without a flush or a clock advance', async () => {
    const target = await register({ url: receiverForTicker.url })
    await harness.request('POST', `/v1/webhooks/${target.id}/test`)
    await receiverForTicker.waitForCount(1)
    expect(receiverForTicker.received[0]!.event.type).toBe('test')
  })
})

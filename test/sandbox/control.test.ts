import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

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

const control = (method: string, path: string, body?: unknown) =>
  harness.request(method, `/_sandbox${path}`, { key: null, body })

function expectErrorBody(
  response: { status: number; body: any; headers: Headers },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status)
  expect(response.body).toEqual({
    error: expect.objectContaining({
      code,
      message: expect.any(String),
      requestId: expect.stringMatching(/^req_/),
    }),
  })
  expect(response.body.error.requestId).toBe(response.headers.get('request-id'))
}

describe('clock', () => {
  it('shows the virtual time and how far it is ahead', async () => {
    const before = harness.sandbox.clock.now()
    const response = await control('GET', '/clock')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      now: before.toISOString(),
      offsetSeconds: (before.getTime() - Date.parse('2026-03-02T09:00:00Z')) / 1000,
    })
  })

  it('moves forward by the given seconds, and the bank stamps new records with the new time', async () => {
    const before = harness.sandbox.clock.now().getTime()
    const advanced = await control('POST', '/clock/advance', { seconds: 90 })
    expect(advanced.status).toBe(200)
    expect(Date.parse(advanced.body.now)).toBe(before + 90_000)
    const created = await harness.request('POST', '/v1/webhooks', {
      body: { url: receiver.url, events: ['test'] },
    })
    expect(created.body.createdAt).toBe(advanced.body.now)
  })

  it('lets due webhook retries go out when advanced', async () => {
    const created = await harness.request('POST', '/v1/webhooks', {
      body: { url: receiver.url, events: ['test'] },
    })
    receiver.answerWith([500])
    await harness.request('POST', `/v1/webhooks/${created.body.id}/test`)
    await control('POST', '/clock/advance', { seconds: 0 })
    expect(receiver.received).toHaveLength(1)
    await control('POST', '/clock/advance', { seconds: 1 })
    expect(receiver.received).toHaveLength(2)
    expect((await control('GET', '/webhooks/deliveries')).body.data[0].status).toBe('delivered')
  })

  it('refuses to move backward or by a non-number', async () => {
    for (const body of [{ seconds: -1 }, { seconds: '60' }, {}]) {
      expectErrorBody(await control('POST', '/clock/advance', body), 400, 'validation_error')
    }
  })
})

describe('reset', () => {
  it('returns to the seeded start: registrations, deliveries and faults gone, keys and time kept', async () => {
    const created = await harness.request('POST', '/v1/webhooks', {
      body: { url: receiver.url, events: ['test'] },
    })
    await harness.request('POST', `/v1/webhooks/${created.body.id}/test`)
    await control('PUT', '/faults', { api: { latencyMs: 5 } })
    await control('POST', '/clock/advance', { seconds: 600 })
    const now = harness.sandbox.clock.now().toISOString()

    const reset = await control('POST', '/reset')
    expect(reset.status).toBe(200)
    expect(reset.body).toEqual({ reset: true, now })

    const list = await harness.request('GET', '/v1/webhooks')
    expect(list.status).toBe(200)
    expect(list.body.data).toEqual([])
    expect((await control('GET', '/webhooks/deliveries')).body.data).toEqual([])
    expect((await control('GET', '/faults')).body.api.latencyMs).toBe(0)
    expect((await control('GET', '/clock')).body.now).toBe(now)
  })
})

describe('cross-site requests', () => {
  it('refuses a change without the Sandbox-Control header or a key, as a web page would send it, and changes nothing', async () => {
    await control('PUT', '/faults', { api: { latencyMs: 5 } })
    for (const [method, path, body, type] of [
      ['POST', '/reset', undefined, undefined],
      ['POST', '/webhooks/flush', undefined, undefined],
      ['POST', '/clock/advance', 'seconds=600', 'application/x-www-form-urlencoded'],
      ['PUT', '/faults', '{"api":{}}', 'text/plain'],
    ] as const) {
      const answer = await fetch(`${harness.url}/_sandbox${path}`, {
        method,
        headers: { origin: 'https://evil.example', ...(type ? { 'content-type': type } : {}) },
        body,
      })
      expect(answer.status, `${method} ${path}`).toBe(403)
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
        'control_intent_required',
      )
    }
    expect((await control('GET', '/faults')).body.api.latencyMs).toBe(5)
  })

  it('takes a change with the header or with a sandbox API key, and reads without either', async () => {
    const withKey = await fetch(`${harness.url}/_sandbox/webhooks/flush`, {
      method: 'POST',
      headers: { authorization: `Bearer ${harness.apiKey}` },
    })
    expect(withKey.status).toBe(200)
    const withHeader = await fetch(`${harness.url}/_sandbox/webhooks/flush`, {
      method: 'POST',
      headers: { 'sandbox-control': '1' },
    })
    expect(withHeader.status).toBe(200)
    const wrongKey = await fetch(`${harness.url}/_sandbox/webhooks/flush`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_not_a_key' },
    })
    expect(wrongKey.status).toBe(403)
    expect((await fetch(`${harness.url}/_sandbox/clock`)).status).toBe(200)
  })
})

describe('webhook inspection', () => {
  it('filters deliveries and refuses an unknown status', async () => {
    const created = await harness.request('POST', '/v1/webhooks', {
      body: { url: receiver.url, events: ['test'] },
    })
    await harness.request('POST', `/v1/webhooks/${created.body.id}/test`)
    await control('POST', '/webhooks/flush')
    expect((await control('GET', '/webhooks/deliveries?status=delivered')).body.data).toHaveLength(1)
    expect((await control('GET', '/webhooks/deliveries?status=pending')).body.data).toHaveLength(0)
    expect((await control('GET', '/webhooks/deliveries?type=test')).body.data).toHaveLength(1)
    expectErrorBody(await control('GET', '/webhooks/deliveries?status=lost'), 400, 'validation_error')
  })
})

describe('errors', () => {
  it('answers an unknown route with 404 not_found in the error body', async () => {
    expectErrorBody(await control('GET', '/no-such-thing'), 404, 'not_found')
    expectErrorBody(await harness.request('GET', '/nowhere', { key: null }), 404, 'not_found')
    expectErrorBody(await harness.request('DELETE', '/v1/webhooks'), 404, 'not_found')
  })

  it('answers malformed JSON with 400 validation_error and the request id', async () => {
    const headers = { 'content-type': 'application/json' }
    expectErrorBody(
      await harness.request('POST', '/_sandbox/clock/advance', { key: null, body: '{"seconds":', headers }),
      400,
      'validation_error',
    )
    const bank = await harness.request('POST', '/v1/webhooks', { body: '{not json', headers })
    expectErrorBody(bank, 400, 'validation_error')
    expect(bank.body.error.details).toEqual([{ path: 'body', message: 'malformed JSON' }])
  })

  it('needs no API key for the control API', async () => {
    expect((await control('GET', '/faults')).status).toBe(200)
    expect((await control('POST', '/webhooks/flush')).status).toBe(200)
  })
})

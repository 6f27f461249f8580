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
})

async function setFaults(target: SandboxHarness, faults: unknown) {
  const response = await target.request('PUT', '/_sandbox/faults', { key: null, body: faults })
  expect(response.status).toBe(200)
  return response.body
}

type Outcome = { status: number | 'dropped'; fault: string | null; body?: any }

/** A request whose connection may be dropped: a dropped one is an outcome, not a test failure. */
async function attempt(
  target: SandboxHarness,
  method: string,
  path: string,
  body?: unknown,
): Promise<Outcome> {
  try {
    const response = await target.request(method, path, { body })
    return { status: response.status, fault: response.headers.get('sandbox-fault'), body: response.body }
  } catch {
    return { status: 'dropped', fault: 'connection_dropped' }
  }
}

async function webhookCount(target: SandboxHarness): Promise<number> {
  await setFaults(target, {})
  const list = await target.request('GET', '/v1/webhooks?limit=500')
  return list.body.data.length
}

describe('fault settings', () => {
  it('starts with no faults and shows the setting that PUT stored', async () => {
    const initial = await harness.request('GET', '/_sandbox/faults', { key: null })
    expect(initial.body).toEqual({
      api: { errorRate: 0, rateLimitRate: 0, retryAfterSeconds: 1, latencyMs: 0 },
      webhooks: { duplicateRate: 0, dropRate: 0, reorder: false, delayMs: 0 },
    })
    const setting = {
      api: { errorRate: 0.1, rateLimitRate: 0.2, retryAfterSeconds: 7, latencyMs: 0 },
      webhooks: { duplicateRate: 0.3, dropRate: 0.4, reorder: true, delayMs: 0 },
    }
    expect(await setFaults(harness, setting)).toEqual(setting)
    expect((await harness.request('GET', '/_sandbox/faults', { key: null })).body).toEqual(setting)
  })

  it('replaces the whole setting: fields left out of a PUT go back to no fault', async () => {
    await setFaults(harness, { api: { errorRate: 1 }, webhooks: { dropRate: 1 } })
    const replaced = await setFaults(harness, { webhooks: { duplicateRate: 0.5 } })
    expect(replaced.api.errorRate).toBe(0)
    expect(replaced.webhooks).toEqual({ duplicateRate: 0.5, dropRate: 0, reorder: false, delayMs: 0 })
  })

  it('refuses rates outside 0–1 and unknown fields with a validation error', async () => {
    for (const body of [
      { api: { errorRate: 1.5 } },
      { webhooks: { dropRate: -0.1 } },
      { api: { errorRat: 1 } },
    ]) {
      const response = await harness.request('PUT', '/_sandbox/faults', { key: null, body })
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.error.code).toBe('validation_error')
    }
  })

  it('is cleared by a reset', async () => {
    await setFaults(harness, { api: { errorRate: 1 } })
    await harness.request('POST', '/_sandbox/reset', { key: null })
    expect((await harness.request('GET', '/_sandbox/faults', { key: null })).body.api.errorRate).toBe(0)
  })
})

describe('API faults', () => {
  it('answers 429 rate_limited with Retry-After at rateLimitRate 1, and the request has no effect', async () => {
    await setFaults(harness, { api: { rateLimitRate: 1, retryAfterSeconds: 17 } })
    const response = await harness.request('POST', '/v1/webhooks', {
      body: { url: receiver.url, events: ['test'] },
    })
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('17')
    expect(response.body.error).toMatchObject({
      code: 'rate_limited',
      requestId: response.headers.get('request-id'),
    })
    expect(await webhookCount(harness)).toBe(0)
  })

  it('at errorRate 1 answers 5xx, some after the request took effect, some by dropping the connection', async () => {
    await setFaults(harness, { api: { errorRate: 1 } })
    const outcomes: Outcome[] = []
    for (let i = 0; i < 24; i++) {
      outcomes.push(await attempt(harness, 'POST', '/v1/webhooks', { url: receiver.url, events: ['test'] }))
    }
    const kinds = new Set(outcomes.map((o) => o.fault))
    expect(kinds).toEqual(new Set(['error_before', 'error_after', 'connection_dropped']))
    for (const outcome of outcomes.filter((o) => o.status !== 'dropped')) {
      expect([500, 502, 503]).toContain(outcome.status)
      expect(outcome.body.error.code).toMatch(/^(internal_error|service_unavailable)$/)
    }
    const tookEffect = outcomes.filter((o) => o.fault === 'error_after' || o.fault === 'connection_dropped')
    expect(await webhookCount(harness)).toBe(tookEffect.length)
  })

  it('prefers an error to a rate limit when both rates are 1', async () => {
    await setFaults(harness, { api: { errorRate: 1, rateLimitRate: 1 } })
    const outcome = await attempt(harness, 'GET', '/v1/webhooks')
    expect(outcome.status).not.toBe(429)
  })

  it('never touches /_sandbox', async () => {
    await setFaults(harness, { api: { errorRate: 1, rateLimitRate: 1 } })
    for (let i = 0; i < 5; i++) {
      const clock = await harness.request('GET', '/_sandbox/clock', { key: null })
      expect(clock.status).toBe(200)
      expect(clock.headers.get('sandbox-fault')).toBeNull()
    }
  })

  it('repeats the same fault sequence for the same seed and setting', async () => {
    const setting = { api: { errorRate: 0.4, rateLimitRate: 0.3 } }
    const run = async (target: SandboxHarness) => {
      await setFaults(target, setting)
      const faults: Array<string | null> = []
      for (let i = 0; i < 30; i++) faults.push((await attempt(target, 'GET', '/v1/webhooks')).fault)
      return faults
    }
    const twin = await startSandbox()
    const otherSeed = await startSandbox({ seed: 43 })
    try {
      const first = await run(harness)
      expect(new Set(first).size).toBeGreaterThan(2)
      expect(await run(twin)).toEqual(first)
      expect(await run(harness)).toEqual(first)
      expect(await run(otherSeed)).not.toEqual(first)
    } finally {
      await twin.close()
      await otherSeed.close()
    }
  })
})

describe('webhook faults', () => {
  async function registerAndTest(target: SandboxHarness, events = 1): Promise<string[]> {
    const created = await target.request('POST', '/v1/webhooks', {
      body: { url: receiver.url, events: ['test'] },
    })
    const eventIds: string[] = []
    for (let i = 0; i < events; i++) {
      eventIds.push((await target.request('POST', `/v1/webhooks/${created.body.id}/test`)).body.eventId)
    }
    return eventIds
  }

  async function deliveryStatuses(target: SandboxHarness): Promise<string[]> {
    return (await target.request('GET', '/_sandbox/webhooks/deliveries', { key: null })).body.data.map(
      (d: any) => d.status,
    )
  }

  it('at dropRate 1 loses every delivery for good', async () => {
    await setFaults(harness, { webhooks: { dropRate: 1 } })
    await registerAndTest(harness, 2)
    await harness.sandbox.flushWebhooks()
    await setFaults(harness, {})
    await harness.sandbox.flushWebhooks()
    await harness.sandbox.advance(3600)
    expect(receiver.received).toHaveLength(0)
    expect(await deliveryStatuses(harness)).toEqual(['dropped', 'dropped'])
  })

  it('at duplicateRate 1 sends every delivery twice with the same event id', async () => {
    await setFaults(harness, { webhooks: { duplicateRate: 1 } })
    const [eventId] = await registerAndTest(harness)
    await harness.sandbox.flushWebhooks()
    expect(receiver.received.map((r) => r.event.id)).toEqual([eventId, eventId])
    expect(await deliveryStatuses(harness)).toEqual(['delivered'])
  })

  it('with reorder sends deliveries attempted together in a shuffled order', async () => {
    // Emitted in one synchronous turn, so the 25 ms delivery tick cannot split them into separate batches.
    const emitEight = async () => {
      await harness.request('POST', '/v1/webhooks', {
        body: { url: receiver.url, events: ['connection.status_changed'] },
      })
      for (let i = 0; i < 8; i++)
        harness.sandbox.ctx.emitEvent('org_main', 'connection.status_changed', { i })
      await harness.sandbox.flushWebhooks()
      return receiver.received.map((r) => r.event.data.i)
    }
    expect(await emitEight()).toEqual([0, 1, 2, 3, 4, 5, 6, 7])

    receiver.received.length = 0
    harness.sandbox.reset()
    await setFaults(harness, { webhooks: { reorder: true } })
    const arrived = await emitEight()
    expect(arrived).not.toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect([...arrived].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  })

  it('repeats the same drops for the same seed and setting', async () => {
    const run = async (target: SandboxHarness) => {
      await setFaults(target, { webhooks: { dropRate: 0.5 } })
      await registerAndTest(target, 16)
      await target.sandbox.flushWebhooks()
      return deliveryStatuses(target)
    }
    const twin = await startSandbox()
    try {
      const first = await run(harness)
      expect(first).toContain('dropped')
      expect(first).toContain('delivered')
      expect(await run(twin)).toEqual(first)
    } finally {
      await twin.close()
    }
  })
})

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ConnectionStatusChangedData, KnownEvent } from '../../src/api-client/index.js'
import { DEFAULT_ERRORS, ERRORED_RECOVERY_SECONDS } from '../../src/sandbox/bank/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { recordEvents, type RecordedEvent } from '../support/recorded-events.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

let harness: SandboxHarness
let events: RecordedEvent[]

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0 })
  events = recordEvents(harness.sandbox)
})
afterAll(() => harness.close())
beforeEach(() => {
  harness.sandbox.reset()
  events.length = 0
})

const force = (id: string, body: unknown) =>
  harness.request('POST', `/_sandbox/connections/${id}/status`, { key: null, body })
const get = async (id: string) => (await harness.request('GET', `/v1/connections/${id}`)).body
const statusEvents = () =>
  events
    .filter((e) => e.type === 'connection.status_changed')
    .map((e) => ConnectionStatusChangedData.parse(e.data))

describe('every status of the table is reachable', () => {
  it('reaches draft, pendingActivation and active through the setup flow', async () => {
    const created = await harness.request('POST', '/v1/connections', {
      body: { entityId: randomUUID(), institutionId: 'ins_harbor_national' },
    })
    const id = created.body.id
    await harness.request('PUT', `/v1/connections/${id}/credentials`, { body: { password: 'pw-123456' } })
    await harness.request('PUT', `/v1/connections/${id}/setupCompletion`)
    await harness.sandbox.advance(harness.sandbox.ctx.settings.activationSeconds)
    expect(statusEvents().map((e) => e.status)).toEqual(['draft', 'pendingActivation', 'active'])
  })

  for (const status of ['reauthRequired', 'errored', 'invalidConfig', 'paused', 'revoked'] as const) {
    it(`reaches ${status} through the control API, with a default error and a connection.status_changed event`, async () => {
      const { connection } = await connectReadyBank(harness)
      events.length = 0
      const response = await force(connection.id, { status })
      expect(response.status).toBe(200)
      expect(response.body).toMatchObject({
        status,
        errorCode: DEFAULT_ERRORS[status]!.code,
        errorMessage: DEFAULT_ERRORS[status]!.message,
      })
      expect(await get(connection.id)).toMatchObject({ status, kind: 'ready' })
      expect(statusEvents()).toEqual([
        {
          connectionId: connection.id,
          entityId: connection.entityId,
          previousStatus: 'active',
          status,
          errorCode: DEFAULT_ERRORS[status]!.code,
          errorMessage: DEFAULT_ERRORS[status]!.message,
        },
      ])
    })
  }
})

describe('POST /_sandbox/connections/{id}/status', () => {
  it('sets the given error code and message', async () => {
    const { connection } = await connectReadyBank(harness)
    const response = await force(connection.id, {
      status: 'reauthRequired',
      errorCode: 'mfa_expired',
      errorMessage: 'The bank asks for a new one-time code.',
    })
    expect(response.body).toMatchObject({
      errorCode: 'mfa_expired',
      errorMessage: 'The bank asks for a new one-time code.',
    })
    expect(statusEvents().at(-1)).toMatchObject({ errorCode: 'mfa_expired' })
  })

  it('clears the error when the connection returns to active', async () => {
    const { connection } = await connectReadyBank(harness)
    await force(connection.id, { status: 'paused' })
    const back = await force(connection.id, { status: 'active' })
    expect(back.body).toMatchObject({ status: 'active', errorCode: null, errorMessage: null })
    expect(statusEvents().at(-1)).toMatchObject({
      previousStatus: 'paused',
      status: 'active',
      errorCode: null,
    })
  })

  it('emits nothing when the status does not change', async () => {
    const { connection } = await connectReadyBank(harness)
    events.length = 0
    await force(connection.id, { status: 'active' })
    expect(statusEvents()).toEqual([])
  })

  it('activates a setup-stage connection forced to active, with accounts and the initial sync', async () => {
    const created = await harness.request('POST', '/v1/connections', {
      body: { entityId: randomUUID(), institutionId: 'ins_harbor_national' },
    })
    const forced = await force(created.body.id, { status: 'active' })
    expect(forced.body).toMatchObject({ kind: 'ready', status: 'active', syncStatus: 'syncing' })
    await harness.sandbox.advance(harness.sandbox.ctx.settings.syncDurationSeconds)
    expect(
      (await harness.request('GET', `/v1/accounts?connectionId=${created.body.id}`)).body.data.length,
    ).toBeGreaterThan(1)
    expect(await get(created.body.id)).toMatchObject({ syncStatus: 'idle', lastSyncedAt: expect.any(String) })
  })

  it('answers 404 for an unknown connection and 400 for an unknown status', async () => {
    expect((await force(randomUUID(), { status: 'paused' })).status).toBe(404)
    const { connection } = await connectReadyBank(harness)
    const bad = await force(connection.id, { status: 'broken' })
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe('validation_error')
  })
})

describe('errored recovers by itself', () => {
  it('returns to active after the service’s automatic retry, emitting the change', async () => {
    const { connection } = await connectReadyBank(harness)
    await force(connection.id, { status: 'errored' })
    await harness.sandbox.advance(ERRORED_RECOVERY_SECONDS - 1)
    expect((await get(connection.id)).status).toBe('errored')
    events.length = 0
    await harness.sandbox.advance(1)
    expect(await get(connection.id)).toMatchObject({ status: 'active', errorCode: null })
    expect(statusEvents()).toEqual([expect.objectContaining({ previousStatus: 'errored', status: 'active' })])
  })

  it('does not recover a connection that moved on to another status meanwhile', async () => {
    const { connection } = await connectReadyBank(harness)
    await force(connection.id, { status: 'errored' })
    await force(connection.id, { status: 'revoked' })
    await harness.sandbox.advance(ERRORED_RECOVERY_SECONDS)
    expect((await get(connection.id)).status).toBe('revoked')
  })
})

describe('reauthRequired on a ready connection', () => {
  it('returns to active once new working credentials are submitted', async () => {
    const { connection } = await connectReadyBank(harness)
    await force(connection.id, { status: 'reauthRequired' })
    const response = await harness.request('PUT', `/v1/connections/${connection.id}/credentials`, {
      body: { password: 'new-password-1' },
    })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ kind: 'ready', status: 'active', errorCode: null })
    expect(statusEvents().at(-1)).toMatchObject({ previousStatus: 'reauthRequired', status: 'active' })
  })
})

describe('webhook delivery of connection.status_changed', () => {
  let receiver: WebhookReceiver
  beforeAll(async () => {
    receiver = await startWebhookReceiver()
  })
  afterAll(() => receiver.close())

  it('delivers each status change to a subscribed registration', async () => {
    const { connection } = await connectReadyBank(harness)
    const registered = await harness.request('POST', '/v1/webhooks', {
      body: { url: receiver.url, events: ['connection.status_changed'] },
    })
    expect(registered.status).toBe(201)
    await force(connection.id, { status: 'paused' })
    await harness.sandbox.flushWebhooks()
    await receiver.waitForCount(1)
    const event = KnownEvent.parse(receiver.received[0]!.event)
    expect(event).toMatchObject({
      type: 'connection.status_changed',
      data: {
        connectionId: connection.id,
        entityId: connection.entityId,
        previousStatus: 'active',
        status: 'paused',
      },
    })
  })
})

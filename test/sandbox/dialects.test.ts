import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBankClient, readSyncEvents, type BankClient } from '../../src/api-client/index.js'
import { SANDBOX_DIALECTS, type SandboxDialect } from '../../src/sandbox/index.js'
import { streamHead, sync } from '../support/ledger-helpers.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

let harness: SandboxHarness
let receiver: WebhookReceiver
let client: BankClient
let connectionId: string
let cursor: string
/** The ids the stream names: one added, one modified (created before the cursor), one removed. */
const ids = { added: '', modified: '', removed: '' }

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0, generatedActivity: false })
  receiver = await startWebhookReceiver()
  client = createBankClient({ baseUrl: harness.url, apiKey: harness.apiKey })
  connectionId = (await connectReadyBank(harness)).connection.id
  const add = async () =>
    (
      await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
        body: { amount: '10.00' },
      })
    ).body.id as string
  ids.modified = await add()
  ids.removed = await add()
  cursor = await streamHead(harness, `connectionId=${connectionId}`)
  ids.added = await add()
  await harness.request('PATCH', `/_sandbox/transactions/${ids.modified}`, {
    body: { description: 'Edited' },
  })
  await harness.request('DELETE', `/_sandbox/transactions/${ids.removed}`)
  await harness.request('POST', '/v1/webhooks', {
    body: { url: receiver.url, events: ['transactions.sync_available', 'connection.status_changed'] },
  })
})
afterAll(async () => {
  await harness?.close()
  await receiver?.close()
})

const setDialect = (name: string) => harness.request('PUT', '/_sandbox/dialect', { body: { name } })
const page = async () =>
  (await sync(harness, `connectionId=${connectionId}&cursor=${encodeURIComponent(cursor)}`)).body
    .events as any[]

/** The changes the stream shows (in position order), as the client reads them: the same in every dialect. */
const SEED_READING = () => [
  ['added', ids.added],
  ['modified', ids.modified],
  ['removed', ids.removed],
]

describe('sandbox dialects', () => {
  it('GET /_sandbox/dialect names the current dialect and every available one; PUT refuses an unknown one', async () => {
    expect((await harness.request('GET', '/_sandbox/dialect')).body).toEqual({
      name: 'seed',
      available: [...SANDBOX_DIALECTS],
    })
    const refused = await setDialect('klingon')
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.body)).toContain('name')
  })

  it.each<[SandboxDialect, string, (removed: any) => void]>([
    ['seed', 'type', (e) => expect(e.transaction).toMatchObject({ id: ids.removed, connectionId })],
    ['kind-synonyms', 'kind', (e) => expect(e).toMatchObject({ kind: 'deleted', id: ids.removed })],
    [
      'shouting',
      'changeType',
      (e) => expect(e).toMatchObject({ changeType: 'DELETED', transaction: { id: ids.removed } }),
    ],
    ['nested-connection', 'action', (e) => expect(e.action).toBe('removed')],
    [
      'event-id',
      'eventType',
      (e) => expect(e).toMatchObject({ eventType: 'removed', transactionId: ids.removed }),
    ],
  ])(
    '%s: sync events name their kind under %s, and the client reads the same changes',
    async (name, field, removedShape) => {
      expect((await setDialect(name)).status).toBe(200)
      const events = await page()
      expect(events.every((e) => typeof e[field] === 'string')).toBe(true)
      removedShape(events.find((e) => JSON.stringify(e).includes(ids.removed)))
      const read = readSyncEvents(events)
      expect(read.unreadable).toEqual([])
      expect(read.dialect?.kindField).toBe(field)
      expect(read.changes.map((c) => [c.type, c.transaction.id])).toEqual(SEED_READING())
      const viaClient = await client.transactions.sync({ connectionId, cursor })
      expect(viaClient.events.map((c) => [c.type, c.transaction.id])).toEqual(SEED_READING())
    },
  )

  it.each<[SandboxDialect, (body: any) => void]>([
    [
      'seed',
      (b) =>
        expect(b).toMatchObject({
          id: expect.any(String),
          createdAt: expect.any(String),
          data: { connectionId, entityId: expect.any(String) },
        }),
    ],
    ['kind-synonyms', (b) => expect(b.data.connectionId).toBe(connectionId)],
    [
      'nested-connection',
      (b) => {
        expect(b.data).toMatchObject({ connection: { id: connectionId } })
        expect(b.data).not.toHaveProperty('entityId')
        expect(b.data).not.toHaveProperty('connectionId')
      },
    ],
    [
      'event-id',
      (b) => {
        expect(b).toMatchObject({ eventId: expect.any(String), type: 'connection.status_changed' })
        expect(b).not.toHaveProperty('id')
        expect(b).not.toHaveProperty('createdAt')
      },
    ],
  ])('%s: webhook deliveries carry the envelope of the dialect', async (name, check) => {
    await setDialect(name)
    const before = receiver.received.length
    await harness.request('POST', `/_sandbox/connections/${connectionId}/status`, {
      body: { status: 'paused' },
    })
    await harness.request('POST', `/_sandbox/connections/${connectionId}/status`, {
      body: { status: 'active' },
    })
    await harness.sandbox.flushWebhooks()
    await harness.sandbox.flushWebhooks()
    await receiver.waitForCount(before + 2)
    const delivered = receiver.received
      .slice(before)
      .map((d) => d.event)
      .filter((b) => b.type === 'connection.status_changed')
    expect(delivered.map((b) => b.data.status ?? b.data.object?.status)).toEqual(['paused', 'active'])
    for (const body of delivered) check(body)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Transaction } from '../../src/api-client/index.js'
import { bankReports, drain, streamHead } from '../support/ledger-helpers.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

let harness: SandboxHarness
let receiver: WebhookReceiver
let connectionId: string
let accounts: any[]

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0 })
  receiver = await startWebhookReceiver()
  const bank = await connectReadyBank(harness)
  connectionId = bank.connection.id
  accounts = bank.accounts
})
afterAll(async () => {
  await harness.close()
  await receiver.close()
})

const post = (id: string, body: unknown) =>
  harness.request('POST', `/_sandbox/connections/${id}/transactions`, { key: null, body })
const patch = (id: string, body: unknown) =>
  harness.request('PATCH', `/_sandbox/transactions/${id}`, { key: null, body })
const remove = (id: string) => harness.request('DELETE', `/_sandbox/transactions/${id}`, { key: null })
const today = () => harness.sandbox.clock.now().toISOString().slice(0, 10)

describe('POST /_sandbox/connections/{id}/transactions', () => {
  it('201 the created transaction in API shape, with the defaults filled in', async () => {
    const first = [...harness.sandbox.ctx.state.accounts.values()].find(
      (a) => a.connectionId === connectionId,
    )!
    const response = await post(connectionId, { amount: '-42.10' })
    expect(response.status).toBe(201)
    expect(Transaction.safeParse(response.body).success).toBe(true)
    expect(response.body).toMatchObject({
      connectionId,
      accountId: first.id,
      amount: '-42.10',
      currency: first.currency,
      status: 'posted',
      postedDate: today(),
      entryType: 'debit',
      rail: 'ach',
      updatedAt: harness.sandbox.clock.now().toISOString(),
      bankReference: expect.stringMatching(/^SBX[0-9A-F]{16}$/),
      description: 'Outgoing payment',
    })
    const read = await harness.request('GET', `/v1/transactions/${response.body.id}`)
    expect(read.body).toEqual(response.body)
  })

  it('entryType follows the sign: a positive amount is a credit', async () => {
    const created = await bankReports(harness, connectionId, {
      amount: '15.00',
      counterpartyName: 'Acme Ltd',
    })
    expect(created).toMatchObject({ entryType: 'credit', description: 'Payment from Acme Ltd' })
  })

  it('keeps every field given', async () => {
    const account = accounts.at(-1)
    const fields = {
      accountId: account.id,
      amount: '1250.00',
      currency: account.currency,
      status: 'pending',
      postedDate: '2026-02-27',
      paymentReference: 'INV-2026-0042',
      customerReference: 'CUST-7',
      description: 'Invoice 42',
      counterpartyName: 'Globex',
      rail: 'wire',
    }
    const created = await bankReports(harness, connectionId, fields)
    expect(created).toMatchObject(fields)
  })

  it("allows a currency other than the account's (a foreign-currency payment)", async () => {
    const usd = accounts.find((a) => a.currency === 'USD')
    const created = await bankReports(harness, connectionId, {
      accountId: usd.id,
      amount: '99.00',
      currency: 'EUR',
    })
    expect(created).toMatchObject({ accountId: usd.id, currency: 'EUR' })
  })

  it('404 for an unknown connection or an account of another connection', async () => {
    expect((await post('00000000-0000-4000-8000-000000000000', { amount: '1.00' })).status).toBe(404)
    const other = await connectReadyBank(harness)
    const response = await post(connectionId, { amount: '1.00', accountId: other.accounts[0].id })
    expect(response.status).toBe(404)
    expect(response.body.error.details[0].path).toBe('body.accountId')
  })

  it('409 for a connection without accounts (still in setup)', async () => {
    const setup = await harness.request('POST', '/v1/connections', {
      body: { entityId: '00000000-0000-4000-8000-0000000000e1', portalUrl: 'https://bank.unlisted.example' },
    })
    expect(setup.body.kind).toBe('setup')
    const response = await post(setup.body.id, { amount: '1.00' })
    expect(response.status).toBe(409)
  })

  for (const [name, body, path] of [
    ['a missing amount', {}, 'body.amount'],
    ['an amount that is not a decimal string', { amount: 'ten' }, 'body.amount'],
    ['an amount as a JS number', { amount: 10 }, 'body.amount'],
    ['an unknown status', { amount: '1.00', status: 'settled' }, 'body.status'],
    ['a bad postedDate', { amount: '1.00', postedDate: '2026-02-30' }, 'body.postedDate'],
    ['an unknown rail', { amount: '1.00', rail: 'pigeon' }, 'body.rail'],
    ['a bad currency', { amount: '1.00', currency: 'us dollars' }, 'body.currency'],
  ] as const) {
    it(`400 validation_error: ${name}`, async () => {
      const response = await post(connectionId, body)
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('validation_error')
      expect(response.body.error.details.map((d: any) => d.path)).toContain(path)
    })
  }

  it('400 validation_error: an unknown field', async () => {
    const response = await post(connectionId, { amount: '1.00', colour: 'red' })
    expect(response.status).toBe(400)
    expect(response.body.error.message).toMatch(/colour/)
  })
})

describe('PATCH /_sandbox/transactions/{id}', () => {
  it('changes the named fields, moves updatedAt and shows as modified in the sync stream', async () => {
    const created = await bankReports(harness, connectionId, { amount: '-10.00', status: 'pending' })
    const head = await streamHead(harness)
    await harness.sandbox.advance(60)
    const response = await patch(created.id, {
      status: 'posted',
      amount: '-10.50',
      paymentReference: 'INV-9',
    })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      ...created,
      status: 'posted',
      amount: '-10.50',
      paymentReference: 'INV-9',
      updatedAt: harness.sandbox.clock.now().toISOString(),
    })
    const { events } = await drain(harness, head, new Map())
    expect(events.map((e) => [e.type, e.transaction.id])).toEqual([['modified', created.id]])
  })

  it('a change of sign flips entryType unless entryType is given', async () => {
    const created = await bankReports(harness, connectionId, { amount: '10.00' })
    expect((await patch(created.id, { amount: '-10.00' })).body.entryType).toBe('debit')
    expect((await patch(created.id, { amount: '5.00', entryType: 'debit' })).body.entryType).toBe('debit')
  })

  it('400: id, connectionId and accountId are immutable', async () => {
    const created = await bankReports(harness, connectionId, { amount: '10.00' })
    for (const field of ['id', 'connectionId', 'accountId']) {
      const response = await patch(created.id, { [field]: '00000000-0000-4000-8000-000000000000' })
      expect(response.status, field).toBe(400)
      expect(response.body.error.message).toMatch(/immutable/)
    }
  })

  it('400 for an empty body or a bad value; 404 for an unknown transaction', async () => {
    const created = await bankReports(harness, connectionId, { amount: '10.00' })
    expect((await patch(created.id, {})).status).toBe(400)
    expect((await patch(created.id, { status: 'settled' })).status).toBe(400)
    expect((await patch('00000000-0000-4000-8000-000000000000', { amount: '1.00' })).status).toBe(404)
  })
})

describe('DELETE /_sandbox/transactions/{id}', () => {
  it('204, the transaction is gone and the sync stream shows it removed', async () => {
    const created = await bankReports(harness, connectionId, { amount: '10.00' })
    const head = await streamHead(harness)
    expect((await remove(created.id)).status).toBe(204)
    expect((await harness.request('GET', `/v1/transactions/${created.id}`)).status).toBe(404)
    const { events } = await drain(harness, head, new Map())
    expect(events.map((e) => [e.type, e.transaction.id])).toEqual([['removed', created.id]])
    expect((await remove(created.id)).status).toBe(404)
  })
})

it('a transactions.sync_available delivery follows every control change', async () => {
  const registered = await harness.request('POST', '/v1/webhooks', {
    body: { url: receiver.url, events: ['transactions.sync_available'] },
  })
  expect(registered.status).toBe(201)
  receiver.received.length = 0
  const created = await bankReports(harness, connectionId, { amount: '10.00' })
  const changes = [
    () => Promise.resolve(),
    () => patch(created.id, { amount: '11.00' }),
    () => remove(created.id),
  ]
  for (const [i, change] of changes.entries()) {
    await change()
    await harness.request('POST', '/_sandbox/webhooks/flush', { key: null })
    await receiver.waitForCount(i + 1)
    expect(receiver.received[i]!.event).toMatchObject({
      type: 'transactions.sync_available',
      data: { connectionId },
    })
  }
})

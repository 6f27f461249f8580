import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BankNotFoundError, type Connection } from '../../src/api-client/index.js'
import { connectReadyBank } from '../support/sandbox-harness.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'
import {
  connectTransferPair,
  startClientHarness,
  type ClientHarness,
  type TransferPair,
} from './client-harness.js'

let h: ClientHarness
let ready: TransferPair

beforeAll(async () => {
  h = await startClientHarness()
  ready = await connectTransferPair(h.harness)
})
afterAll(() => h.close())

describe('institutions', () => {
  it('lists the catalog page by page and searches it', async () => {
    const page = await h.client.institutions.list({ limit: 5 })
    expect(page.data).toHaveLength(5)
    expect(page.pagination.hasMore).toBe(true)
    const harbor = await h.client.institutions.list({ query: 'Harbor' })
    expect(harbor.data.map((i) => i.institutionId)).toContain('ins_harbor_national')
  })

  it('gets one institution by id', async () => {
    const institution = await h.client.institutions.get('ins_harbor_national')
    expect(institution).toMatchObject({ institutionId: 'ins_harbor_national', status: 'live' })
  })
})

describe('connections', () => {
  it('onboards a bank outside the catalog through create, submitCredentials and completeSetup', async () => {
    const entityId = randomUUID()
    const created = await h.client.connections.create({
      entityId,
      portalUrl: 'https://banking.unlisted-bank.test/login',
    })
    expect(created.kind).toBe('setup')
    if (created.kind !== 'setup') return
    expect(created.setup.instructions.emailProvisioningStatus).toBe('pending')

    const withCredentials = await h.client.connections.submitCredentials(created.id, {
      bankUsername: 'delegate',
      password: 'correct horse battery staple',
    })
    expect(withCredentials.kind === 'setup' && withCredentials.setup.credentialsPresent).toBe(true)

    const completed = await h.client.connections.completeSetup(created.id)
    expect(completed.status).toBe('pendingActivation')

    const settings = h.harness.sandbox.ctx.settings
    await h.harness.sandbox.advance(settings.activationSeconds + settings.syncDurationSeconds)
    const active: Connection = await h.client.connections.get(created.id)
    expect(active).toMatchObject({ kind: 'ready', status: 'active' })
  })

  it('lists connections filtered by entity, and every one through listAll', async () => {
    const page = await h.client.connections.list({ entityId: ready.connection.entityId })
    expect(page.data.map((c) => c.id)).toEqual([ready.connection.id])
    const all: string[] = []
    for await (const connection of h.client.connections.listAll({ limit: 1 })) all.push(connection.id)
    expect(all).toContain(ready.connection.id)
    expect(new Set(all).size).toBe(all.length)
  })

  it('gets a ready connection in its ready shape', async () => {
    const connection = await h.client.connections.get(ready.connection.id)
    expect(connection).toMatchObject({ id: ready.connection.id, kind: 'ready', syncStatus: 'idle' })
  })

  it('requests a sync once the cooldown has passed and gets 202 queued', async () => {
    await h.harness.sandbox.advance(h.harness.sandbox.ctx.settings.syncCooldownSeconds + 1)
    const accepted = await h.client.connections.requestSync(ready.connection.id)
    expect(accepted).toMatchObject({ connectionId: ready.connection.id, status: 'queued' })
    await h.harness.sandbox.advance(h.harness.sandbox.ctx.settings.syncDurationSeconds)
  })

  it('deletes a connection, after which it is not found', async () => {
    const doomed = await connectReadyBank(h.harness)
    await expect(h.client.connections.delete(doomed.connection.id)).resolves.toBeUndefined()
    await expect(h.client.connections.get(doomed.connection.id)).rejects.toBeInstanceOf(BankNotFoundError)
  })
})

describe('accounts', () => {
  it('lists the accounts of a connection and gets each one', async () => {
    const page = await h.client.accounts.list({ connectionId: ready.connection.id })
    expect(page.data.map((a) => a.id).sort()).toEqual(ready.accounts.map((a) => a.id).sort())
    const account = await h.client.accounts.get(page.data[0]!.id)
    expect(account).toEqual(page.data[0])
  })

  it('returns only the requested fields and the identifiers with a sparse fieldset', async () => {
    const page = await h.client.accounts.list({ connectionId: ready.connection.id, fields: 'name' })
    expect(Object.keys(page.data[0]!).sort()).toEqual(['connectionId', 'id', 'name'])
    const one = await h.client.accounts.get(ready.accounts[0]!.id, { fields: 'currency' })
    expect(Object.keys(one).sort()).toEqual(['connectionId', 'currency', 'id'])
  })

  it('walks every account with listAll and listPages', async () => {
    const ids: string[] = []
    for await (const account of h.client.accounts.listAll({ connectionId: ready.connection.id, limit: 1 })) {
      ids.push(account.id)
    }
    expect(ids.sort()).toEqual(ready.accounts.map((a) => a.id).sort())
    let pages = 0
    for await (const page of h.client.accounts.listPages({ connectionId: ready.connection.id, limit: 1 })) {
      expect(page.data).toHaveLength(1)
      pages++
    }
    expect(pages).toBe(ready.accounts.length)
  })
})

describe('balances', () => {
  it('lists daily balance rows of one account, date descending', async () => {
    const page = await h.client.balances.list({ accountId: ready.accounts[0]!.id, limit: 10 })
    expect(page.data.length).toBeGreaterThan(0)
    expect(page.data.every((row) => row.accountId === ready.accounts[0]!.id)).toBe(true)
    const dates = page.data.map((row) => row.date)
    expect(dates).toEqual([...dates].sort().reverse())
  })

  it('walks every row with listAll, the same rows as one big page', async () => {
    const params = { connectionId: ready.connection.id, dateGte: '2026-02-01' }
    const all = []
    for await (const row of h.client.balances.listAll({ ...params, limit: 7 })) all.push(row)
    const big = await h.client.balances.list({ ...params, limit: 500 })
    expect(all).toEqual(big.data)
  })
})

describe('transactions', () => {
  it('lists, filters and gets transactions', async () => {
    const page = await h.client.transactions.list({
      connectionId: ready.connection.id,
      limit: 3,
      sort: 'postedDate',
    })
    expect(page.data.length).toBeGreaterThan(0)
    const dates = page.data.map((t) => t.postedDate!)
    expect(dates).toEqual([...dates].sort())
    const one = await h.client.transactions.get(page.data[0]!.id)
    expect(one).toEqual(page.data[0])
  })

  it('gets a transaction with a sparse fieldset, identifiers always included', async () => {
    const [first] = (await h.client.transactions.list({ connectionId: ready.connection.id, limit: 1 })).data
    const one = await h.client.transactions.get(first!.id, { fields: 'amount' })
    expect(Object.keys(one).sort()).toEqual(['accountId', 'amount', 'connectionId', 'id'])
  })

  it('starts a sync stream at the head without events', async () => {
    const head = await h.client.transactions.sync({ connectionId: ready.connection.id })
    expect(head).toMatchObject({ events: [], hasMore: false })
    expect(head.nextCursor).toEqual(expect.any(String))
  })
})

describe('transfers', () => {
  const transferBody = () => ({
    type: 'internal' as const,
    transferType: 'internal' as const,
    amount: { type: 'money' as const, value: '12.50', currency: ready.source.currency },
    sourceAccountId: ready.source.id,
    destination: { type: 'account', accountId: ready.destination.id },
    clientReference: `INV-${randomUUID().slice(0, 8)}`,
    skipPreflight: true,
  })

  it('creates a transfer and gets it back', async () => {
    const transfer = await h.client.transfers.create(transferBody())
    expect(transfer).toMatchObject({ status: 'queued', requestedAmount: { value: '12.50' } })
    expect(await h.client.transfers.get(transfer.id)).toMatchObject({ id: transfer.id })
  })

  it('retries a failed transfer', async () => {
    const transfer = await h.client.transfers.create(transferBody())
    const forced = await h.harness.request('POST', `/_sandbox/transfers/${transfer.id}/outcome`, {
      body: { status: 'failed', failureReason: { message: 'bank rejected' } },
    })
    expect(forced.status).toBe(200)
    const retried = await h.client.transfers.retry(transfer.id)
    expect(retried.id).toBe(transfer.id)
    expect(retried.status).not.toBe('failed')
  })
})

describe('webhooks', () => {
  let receiver: WebhookReceiver
  beforeAll(async () => {
    receiver = await startWebhookReceiver()
  })
  afterAll(() => receiver.close())

  it('creates, lists, gets, updates, tests and deletes a registration', async () => {
    const client = h.clientWith({ allowHttpLoopbackWebhooks: true })
    const created = await client.webhooks.create({
      url: receiver.url,
      events: ['transactions.sync_available'],
    })
    expect(created.secret).toMatch(/^whsec_/)

    const listed = await client.webhooks.list()
    expect(listed.data.map((w) => w.id)).toContain(created.id)
    const fetched = await client.webhooks.get(created.id)
    expect(fetched.secret).not.toBe(created.secret)

    const updated = await client.webhooks.update(created.id, { metadata: { team: 'ops' } })
    expect(updated).toMatchObject({ url: receiver.url, metadata: { team: 'ops' } })

    const test = await client.webhooks.test(created.id)
    await h.harness.sandbox.flushWebhooks()
    await receiver.waitForCount(1)
    expect(receiver.received.map((d) => d.event?.id)).toContain(test.eventId)

    await client.webhooks.delete(created.id)
    await expect(client.webhooks.get(created.id)).rejects.toBeInstanceOf(BankNotFoundError)
  })

  it('walks every registration with listAll', async () => {
    const ids = []
    for (let i = 0; i < 3; i++) {
      ids.push((await h.client.webhooks.create({ url: 'https://127.0.0.1:9/hooks', events: ['test'] })).id)
    }
    const seen: string[] = []
    for await (const webhook of h.client.webhooks.listAll({ limit: 2 })) seen.push(webhook.id)
    expect(seen).toEqual(expect.arrayContaining(ids))
  })
})

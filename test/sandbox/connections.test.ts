import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  Connection,
  ConnectionStatusChangedData,
  ReadyConnection,
  SetupConnection,
  listResponse,
} from '../../src/api-client/index.js'
import {
  EMAIL_PROVISIONING_SECONDS,
  PHONE_PROVISIONING_SECONDS,
  REJECTED_PASSWORD,
} from '../../src/sandbox/bank/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { recordEvents, type RecordedEvent } from '../support/recorded-events.js'

let harness: SandboxHarness
let events: RecordedEvent[]

beforeAll(async () => {
  harness = await startSandbox()
  events = recordEvents(harness.sandbox)
})
afterAll(() => harness.close())
beforeEach(() => {
  harness.sandbox.reset()
  events.length = 0
})

const create = (body: unknown, key?: string) => harness.request('POST', '/v1/connections', { body, key })
const get = (id: string, key?: string) => harness.request('GET', `/v1/connections/${id}`, { key })
const credentials = (id: string, body: unknown = { bankUsername: 'delegate', password: 's3cret-pass' }) =>
  harness.request('PUT', `/v1/connections/${id}/credentials`, { body })
const complete = (id: string) => harness.request('PUT', `/v1/connections/${id}/setupCompletion`)
const settings = () => harness.sandbox.ctx.settings

const transactionIdsOf = (connectionId: string) =>
  [...harness.sandbox.ctx.state.transactions.values()]
    .filter((t) => t.connectionId === connectionId)
    .map((t) => t.id)

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status).toBe(status)
  expect(response.body.error).toMatchObject({
    code,
    message: expect.any(String),
    requestId: expect.any(String),
  })
}

const statusEvents = () =>
  events
    .filter((e) => e.type === 'connection.status_changed')
    .map((e) => ConnectionStatusChangedData.parse(e.data))

describe('POST /v1/connections', () => {
  it('creates a setup-stage connection whose first response already carries the delegated-user instructions', async () => {
    const entityId = randomUUID()
    const response = await create({ entityId, institutionId: 'ins_harbor_national' })
    expect(response.status).toBe(201)
    const connection = SetupConnection.parse(response.body)
    expect(connection).toMatchObject({
      kind: 'setup',
      status: 'draft',
      entityId,
      institutionId: 'ins_harbor_national',
      institutionName: 'Harbor National Bank',
      portalUrl: 'https://business.harbornational.example',
      errorCode: null,
      errorMessage: null,
    })
    const { instructions } = connection.setup
    for (const field of ['firstName', 'lastName', 'address', 'email', 'username', 'phoneNumber'] as const) {
      expect(instructions[field]).not.toBe('')
    }
    expect(instructions.emailProvisioningStatus).toBe('pending')
    expect(instructions.phoneNumberProvisioningStatus).toBe('pending')
    expect(connection.setup).toMatchObject({
      credentialsPresent: false,
      nextAction: 'createDelegatedUser',
      actionRequiredBy: 'service',
    })
  })

  it('emits connection.status_changed from no status to draft on creation', async () => {
    const response = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    expect(statusEvents()).toEqual([
      expect.objectContaining({ connectionId: response.body.id, previousStatus: null, status: 'draft' }),
    ])
  })

  it('accepts a portal URL alone for a bank not in the catalog: setup stage, no institution, normalized portal', async () => {
    const response = await create({
      entityId: randomUUID(),
      portalUrl: 'https://Online.Unlisted-Bank.EXAMPLE:443/Login/?a=1#x',
    })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({
      kind: 'setup',
      status: 'draft',
      institutionId: null,
      institutionName: null,
      portalUrl: 'https://online.unlisted-bank.example/Login',
    })
  })

  it('recognises a catalog bank by any of its portal URLs', async () => {
    const response = await create({
      entityId: randomUUID(),
      portalUrl: 'https://treasury.harbornational.example/',
    })
    expect(response.body).toMatchObject({
      institutionId: 'ins_harbor_national',
      portalUrl: 'https://treasury.harbornational.example',
    })
  })

  it('lets portalUrl pick another login portal of the institution', async () => {
    const response = await create({
      entityId: randomUUID(),
      institutionId: 'ins_meridian_commerce',
      portalUrl: 'https://SmallBiz.MeridianCommerce.example/',
    })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({
      institutionId: 'ins_meridian_commerce',
      portalUrl: 'https://smallbiz.meridiancommerce.example',
    })
  })

  it('gives a pending institution a setup-stage connection', async () => {
    const response = await create({ entityId: randomUUID(), institutionId: 'ins_oakmont_savings' })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({
      kind: 'setup',
      status: 'draft',
      institutionId: 'ins_oakmont_savings',
    })
  })

  it('returns the existing connection with 200 for the same entity and the same normalized portal', async () => {
    const entityId = randomUUID()
    const first = await create({ entityId, institutionId: 'ins_harbor_national' })
    const again = await create({ entityId, portalUrl: 'https://BUSINESS.harbornational.example/' })
    expect(again.status).toBe(200)
    expect(again.body).toEqual(first.body)
    const otherEntity = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    expect(otherEntity.status).toBe(201)
    expect(otherEntity.body.id).not.toBe(first.body.id)
    const otherPortal = await create({ entityId, portalUrl: 'https://treasury.harbornational.example' })
    expect(otherPortal.status).toBe(201)
  })

  it('returns an existing ready connection as it is', async () => {
    const entityId = randomUUID()
    const { connection } = await connectReadyBank(harness, { entityId })
    const again = await create({ entityId, institutionId: 'ins_harbor_national' })
    expect(again.status).toBe(200)
    expect(ReadyConnection.parse(again.body).id).toBe(connection.id)
  })

  it('requires entityId, as a uuid', async () => {
    expectError(await create({ institutionId: 'ins_harbor_national' }), 400, 'validation_error')
    expectError(
      await create({ entityId: 'ent_1', institutionId: 'ins_harbor_national' }),
      400,
      'validation_error',
    )
  })

  it('requires one of institutionId or portalUrl', async () => {
    expectError(await create({ entityId: randomUUID() }), 400, 'validation_error')
    expectError(await create({ entityId: randomUUID(), portalUrl: null }), 400, 'validation_error')
  })

  it('rejects a portal URL that is not HTTPS', async () => {
    const response = await create({ entityId: randomUUID(), portalUrl: 'http://bank.example' })
    expectError(response, 400, 'validation_error')
    expect(response.body.error.details[0].path).toBe('body.portalUrl')
  })

  it('answers 404 for an unknown institution id', async () => {
    expectError(await create({ entityId: randomUUID(), institutionId: 'ins_nope' }), 404, 'not_found')
  })
})

describe('the setup flow', () => {
  it('provisions the delegated user’s email then phone on the clock, then asks for credentials', async () => {
    const { body } = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    await harness.sandbox.advance(EMAIL_PROVISIONING_SECONDS)
    const mid = (await get(body.id)).body
    expect(mid.setup.instructions).toMatchObject({
      emailProvisioningStatus: 'provisioned',
      phoneNumberProvisioningStatus: 'pending',
    })
    expect(mid.setup.nextAction).toBe('createDelegatedUser')
    await harness.sandbox.advance(PHONE_PROVISIONING_SECONDS - EMAIL_PROVISIONING_SECONDS)
    const done = (await get(body.id)).body
    expect(done.setup.instructions.phoneNumberProvisioningStatus).toBe('provisioned')
    expect(done.setup).toMatchObject({ nextAction: 'provideCredentials', actionRequiredBy: 'endUser' })
    expect(Date.parse(done.updatedAt)).toBeGreaterThan(Date.parse(body.updatedAt))
  })

  it('records submitted credentials as a flag and never echoes the password', async () => {
    const { body } = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    const response = await credentials(body.id, {
      bankUsername: 'delegate',
      bankCustomerId: 'C-0042',
      password: 'Sup3r-Secret!',
    })
    expect(response.status).toBe(200)
    expect(SetupConnection.parse(response.body).setup).toMatchObject({
      credentialsPresent: true,
      nextAction: 'activateConnection',
      actionRequiredBy: 'integrator',
    })
    expect(JSON.stringify(response.body)).not.toContain('Sup3r-Secret!')
    expect(JSON.stringify([...harness.sandbox.ctx.state.connections.values()])).not.toContain('Sup3r-Secret!')
  })

  it('rejects a credentials body with nothing in it', async () => {
    const { body } = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    expectError(await credentials(body.id, {}), 400, 'validation_error')
    expectError(await credentials(body.id, { password: '' }), 400, 'validation_error')
  })

  it('refuses setupCompletion before credentials with 409 credentials_required', async () => {
    const { body } = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    expectError(await complete(body.id), 409, 'credentials_required')
  })

  it('hands activation to the service: pendingActivation, then kind=ready, active, with accounts', async () => {
    const { body } = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    await credentials(body.id)
    const completed = await complete(body.id)
    expect(completed.status).toBe(200)
    expect(SetupConnection.parse(completed.body)).toMatchObject({
      status: 'pendingActivation',
      setup: { nextAction: 'activateConnection', actionRequiredBy: 'service' },
    })
    expect((await complete(body.id)).body.status).toBe('pendingActivation')
    await harness.sandbox.advance(settings().activationSeconds - 1)
    expect((await get(body.id)).body.kind).toBe('setup')
    await harness.sandbox.advance(1)
    const ready = ReadyConnection.parse((await get(body.id)).body)
    expect(ready).toMatchObject({ kind: 'ready', status: 'active', institutionId: 'ins_harbor_national' })
    const accounts = await harness.request('GET', `/v1/accounts?connectionId=${body.id}`)
    expect(accounts.body.data.length).toBeGreaterThanOrEqual(2)
    expect(accounts.body.data.length).toBeLessThanOrEqual(4)
    expect(statusEvents().map((e) => [e.previousStatus, e.status])).toEqual([
      [null, 'draft'],
      ['draft', 'pendingActivation'],
      ['pendingActivation', 'active'],
    ])
  })

  it('activates an unlisted bank under an institution id derived from its portal', async () => {
    const { connection } = await connectReadyBank(harness, {
      portalUrl: 'https://online.unlisted-bank.example',
    })
    expect(connection.institutionId).toMatch(/^ins_unlisted_[0-9a-f]{12}$/)
    expect(connection.portalUrl).toBe('https://online.unlisted-bank.example')
  })

  it(`ends activation in reauthRequired when the bank rejects the password (${REJECTED_PASSWORD})`, async () => {
    const { body } = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    await credentials(body.id, { bankUsername: 'delegate', password: REJECTED_PASSWORD })
    await complete(body.id)
    await harness.sandbox.advance(settings().activationSeconds)
    const rejected = SetupConnection.parse((await get(body.id)).body)
    expect(rejected).toMatchObject({
      kind: 'setup',
      status: 'reauthRequired',
      errorCode: 'invalid_credentials',
      setup: { credentialsPresent: false, nextAction: 'provideCredentials', actionRequiredBy: 'endUser' },
    })
    expect(rejected.errorMessage).toEqual(expect.any(String))
    expect(rejected.errorMessage).not.toContain(REJECTED_PASSWORD)

    const fixed = await credentials(body.id)
    expect(fixed.body).toMatchObject({
      status: 'draft',
      errorCode: null,
      setup: { credentialsPresent: true },
    })
    await complete(body.id)
    await harness.sandbox.advance(settings().activationSeconds)
    expect((await get(body.id)).body).toMatchObject({ kind: 'ready', status: 'active' })
  })

  it('refuses setupCompletion on a ready connection with 409 connection_not_in_setup', async () => {
    const { connection } = await connectReadyBank(harness)
    expectError(await complete(connection.id), 409, 'connection_not_in_setup')
  })
})

describe('GET /v1/connections/{id}', () => {
  it('returns the ready shape once ready', async () => {
    const { connection } = await connectReadyBank(harness)
    const response = await get(connection.id)
    expect(response.status).toBe(200)
    expect(ReadyConnection.strict().safeParse(response.body).success).toBe(true)
  })

  it('answers 404 for an unknown id', async () => {
    expectError(await get('00000000-0000-4000-8000-000000000000'), 404, 'not_found')
  })
})

describe('GET /v1/connections', () => {
  async function makeThree() {
    const entityId = randomUUID()
    const a = (await create({ entityId, institutionId: 'ins_harbor_national' })).body
    await harness.sandbox.advance(1)
    const b = (await create({ entityId, institutionId: 'ins_granite_trust' })).body
    await harness.sandbox.advance(1)
    const c = (await create({ entityId: randomUUID(), institutionId: 'ins_granite_trust' })).body
    return { entityId, a, b, c }
  }

  it('lists connections newest first in the list envelope', async () => {
    const { a, b, c } = await makeThree()
    const response = await harness.request('GET', '/v1/connections')
    expect(response.status).toBe(200)
    const list = listResponse(Connection).parse(response.body)
    expect(list.data.map((x) => x.id)).toEqual([c.id, b.id, a.id])
    expect(list.pagination).toEqual({ hasMore: false, nextCursor: null })
    expect(list.meta.requestId).toBe(response.headers.get('request-id'))
  })

  it('orders connections created at the same instant newest first too', async () => {
    const first = (await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })).body
    const second = (await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })).body
    const ids = (await harness.request('GET', '/v1/connections')).body.data.map((x: any) => x.id)
    expect(ids).toEqual([second.id, first.id])
  })

  it('filters by status, institutionId and entityId', async () => {
    const { entityId, a, b, c } = await makeThree()
    await credentials(a.id)
    await complete(a.id)
    const ids = async (query: string) =>
      (await harness.request('GET', `/v1/connections?${query}`)).body.data.map((x: any) => x.id)
    expect(await ids('status=pendingActivation')).toEqual([a.id])
    expect(await ids('status=draft')).toEqual([c.id, b.id])
    expect(await ids('institutionId=ins_granite_trust')).toEqual([c.id, b.id])
    expect(await ids(`entityId=${entityId}`)).toEqual([b.id, a.id])
    expect(await ids(`entityId=${entityId}&institutionId=ins_granite_trust`)).toEqual([b.id])
  })

  it('rejects an unknown status filter', async () => {
    expectError(await harness.request('GET', '/v1/connections?status=broken'), 400, 'validation_error')
  })

  it('pages with limit and cursor; a cursor only works with the same filters', async () => {
    const { a, b, c } = await makeThree()
    const first = await harness.request('GET', '/v1/connections?limit=2')
    expect(first.body.data.map((x: any) => x.id)).toEqual([c.id, b.id])
    expect(first.body.pagination.hasMore).toBe(true)
    const cursor = encodeURIComponent(first.body.pagination.nextCursor)
    const second = await harness.request('GET', `/v1/connections?limit=2&cursor=${cursor}`)
    expect(second.body.data.map((x: any) => x.id)).toEqual([a.id])
    expect(second.body.pagination).toEqual({ hasMore: false, nextCursor: null })
    expectError(
      await harness.request('GET', `/v1/connections?limit=2&status=draft&cursor=${cursor}`),
      400,
      'invalid_cursor',
    )
    expectError(await harness.request('GET', '/v1/connections?cursor=garbage'), 400, 'invalid_cursor')
  })

  it('accepts limit 1 to 500 only', async () => {
    expectError(await harness.request('GET', '/v1/connections?limit=0'), 400, 'validation_error')
    expectError(await harness.request('GET', '/v1/connections?limit=501'), 400, 'validation_error')
    expect((await harness.request('GET', '/v1/connections?limit=500')).status).toBe(200)
  })

  it('returns at most 100 connections by default', async () => {
    for (let i = 0; i < 101; i++)
      await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    const page = await harness.request('GET', '/v1/connections')
    expect(page.body.data).toHaveLength(100)
    expect(page.body.pagination.hasMore).toBe(true)
  })
})

describe('DELETE /v1/connections/{id}', () => {
  it('hard-deletes the connection with its accounts and transactions (204), each transaction removed in the sync stream', async () => {
    const { connection, accounts } = await connectReadyBank(harness)
    const state = harness.sandbox.ctx.state
    const transactionIds = [...state.transactions.values()]
      .filter((t) => t.connectionId === connection.id)
      .map((t) => t.id)
    expect(transactionIds.length).toBeGreaterThan(0)
    events.length = 0

    const response = await harness.request('DELETE', `/v1/connections/${connection.id}`)
    expect(response.status).toBe(204)
    expect(response.body).toBeUndefined()
    expectError(await get(connection.id), 404, 'not_found')
    expect((await harness.request('GET', `/v1/accounts?connectionId=${connection.id}`)).body.data).toEqual([])
    expectError(await harness.request('GET', `/v1/accounts/${accounts[0].id}`), 404, 'not_found')
    for (const id of transactionIds) {
      expect(state.transactions.has(id)).toBe(false)
      expect(state.tombstones.get(id)).toMatchObject({ connectionId: connection.id })
    }
    expect(events).toEqual([
      expect.objectContaining({
        type: 'transactions.sync_available',
        data: { connectionId: connection.id, entityId: connection.entityId },
      }),
    ])
  })

  it('shows every deleted transaction as a removed event in a sync stream opened before the delete', async () => {
    const { connection } = await connectReadyBank(harness)
    const ids = transactionIdsOf(connection.id)
    const head = await harness.request('GET', `/v1/transactions/sync?connectionId=${connection.id}`)
    await harness.request('DELETE', `/v1/connections/${connection.id}`)
    const seen: any[] = []
    let cursor = head.body.nextCursor
    for (;;) {
      const page = await harness.request(
        'GET',
        `/v1/transactions/sync?connectionId=${connection.id}&limit=500&cursor=${encodeURIComponent(cursor)}`,
      )
      expect(page.status).toBe(200)
      seen.push(...page.body.events)
      cursor = page.body.nextCursor
      if (!page.body.hasMore) break
    }
    expect(seen.every((e) => e.type === 'removed')).toBe(true)
    expect(seen.map((e) => e.transaction.id).sort()).toEqual([...ids].sort())
  })

  it('deletes a setup-stage connection', async () => {
    const { body } = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    expect((await harness.request('DELETE', `/v1/connections/${body.id}`)).status).toBe(204)
    expectError(await get(body.id), 404, 'not_found')
  })

  it('answers 409 delete_conflict while activation is pending', async () => {
    const { body } = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    await credentials(body.id)
    await complete(body.id)
    expectError(await harness.request('DELETE', `/v1/connections/${body.id}`), 409, 'delete_conflict')
    expect((await get(body.id)).status).toBe(200)
  })

  it('answers 409 delete_conflict while a sync runs, and deletes once it is done', async () => {
    const { connection } = await connectReadyBank(harness)
    await harness.sandbox.advance(settings().syncCooldownSeconds)
    expect((await harness.request('PUT', `/v1/connections/${connection.id}/sync`)).status).toBe(202)
    expectError(await harness.request('DELETE', `/v1/connections/${connection.id}`), 409, 'delete_conflict')
    await harness.sandbox.advance(settings().syncDurationSeconds)
    expect((await harness.request('DELETE', `/v1/connections/${connection.id}`)).status).toBe(204)
  })

  it('answers 404 for an unknown connection', async () => {
    expectError(await harness.request('DELETE', `/v1/connections/${randomUUID()}`), 404, 'not_found')
  })
})

describe('scopes and organizations', () => {
  it('lets a read-only key read connections but answers 403 to every write', async () => {
    const readOnly = harness.keyFor('read only')
    const { body } = await create({ entityId: randomUUID(), institutionId: 'ins_harbor_national' })
    expect((await get(body.id, readOnly)).status).toBe(200)
    expect((await harness.request('GET', '/v1/connections', { key: readOnly })).status).toBe(200)
    const writes: Array<[string, string, unknown?]> = [
      ['POST', '/v1/connections', { entityId: randomUUID(), institutionId: 'ins_harbor_national' }],
      ['PUT', `/v1/connections/${body.id}/credentials`, { password: 'x' }],
      ['PUT', `/v1/connections/${body.id}/setupCompletion`],
      ['PUT', `/v1/connections/${body.id}/sync`],
      ['DELETE', `/v1/connections/${body.id}`],
    ]
    for (const [method, path, payload] of writes) {
      expectError(
        await harness.request(method, path, { key: readOnly, body: payload }),
        403,
        'insufficient_scope',
      )
    }
  })

  it('answers 401 without an API key', async () => {
    expectError(
      await harness.request('GET', '/v1/connections', { key: null }),
      401,
      'authentication_required',
    )
  })

  it('shows another organization none of org_main’s connections', async () => {
    const other = harness.keyFor('other organization')
    const { connection } = await connectReadyBank(harness)
    expect((await harness.request('GET', '/v1/connections', { key: other })).body.data).toEqual([])
    expectError(await get(connection.id, other), 404, 'not_found')
    for (const [method, path] of [
      ['PUT', `/v1/connections/${connection.id}/credentials`],
      ['PUT', `/v1/connections/${connection.id}/setupCompletion`],
      ['PUT', `/v1/connections/${connection.id}/sync`],
      ['DELETE', `/v1/connections/${connection.id}`],
    ] as const) {
      expectError(
        await harness.request(method, path, { key: other, body: { password: 'x' } }),
        404,
        'not_found',
      )
    }
    expect((await get(connection.id)).status).toBe(200)
  })

  it('keeps the same entity and portal apart across organizations', async () => {
    const entityId = randomUUID()
    const mine = await create({ entityId, institutionId: 'ins_harbor_national' })
    const theirs = await create(
      { entityId, institutionId: 'ins_harbor_national' },
      harness.keyFor('other organization'),
    )
    expect(theirs.status).toBe(201)
    expect(theirs.body.id).not.toBe(mine.body.id)
  })
})

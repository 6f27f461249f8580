import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Transfer } from '../../src/api-client/index.js'
import { bankReports, drain, listAll, streamHead } from '../support/ledger-helpers.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

const STEP = 5
let harness: SandboxHarness
let usdA: any
let usdB: any
let gbpA: any
let otherOrgAccount: any

const operatingUsd = (accounts: any[]) => accounts.find((a) => a.currency === 'USD' && a.type === 'checking')

beforeAll(async () => {
  harness = await startSandbox({
    scheduledSyncIntervalSeconds: 0,
    transferApprovalThreshold: '1000.00',
    transferStepSeconds: STEP,
  })
  const a = await connectReadyBank(harness)
  const b = await connectReadyBank(harness)
  usdA = operatingUsd(a.accounts)
  usdB = operatingUsd(b.accounts)
  gbpA = a.accounts.find((x: any) => x.currency === 'GBP')
  otherOrgAccount = operatingUsd(
    (await connectReadyBank(harness, { key: harness.keyFor('other organization') })).accounts,
  )
})
afterAll(() => harness.close())

function body(overrides: Record<string, unknown> = {}) {
  return {
    type: 'internal',
    amount: { type: 'money', value: '10.00', currency: 'USD' },
    sourceAccountId: usdA.id,
    destination: { type: 'account', accountId: usdB.id },
    transferType: 'internal',
    clientReference: 'INV-1001',
    memo: 'March rent',
    ...overrides,
  }
}

function create(payload: unknown, options: { key?: string; idempotencyKey?: string } = {}) {
  return harness.request('POST', '/v1/transfers', {
    body: payload,
    key: options.key,
    headers: options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey },
  })
}

async function created(payload: unknown = body()) {
  const response = await create(payload)
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body
}

const get = async (id: string) => (await harness.request('GET', `/v1/transfers/${id}`)).body
const retry = (id: string, options: { key?: string; idempotencyKey?: string } = {}) =>
  harness.request('POST', `/v1/transfers/${id}/retry`, {
    key: options.key,
    headers: options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey },
  })
const force = (id: string, outcome: Record<string, unknown>) =>
  harness.request('POST', `/_sandbox/transfers/${id}/outcome`, { key: null, body: outcome })
const now = () => harness.sandbox.clock.now().toISOString()

/** A fresh connected USD account whose available balance the test controls. */
async function accountWithAvailable(value: string) {
  const bank = await connectReadyBank(harness)
  const account = operatingUsd(bank.accounts)
  const current = (await harness.request('GET', `/v1/accounts/${account.id}`)).body.availableBalance
  const delta = (Number(value) - Number(current)).toFixed(2)
  await bankReports(harness, bank.connection.id, { accountId: account.id, amount: delta })
  const after = (await harness.request('GET', `/v1/accounts/${account.id}`)).body.availableBalance
  expect(Number(after)).toBe(Number(value))
  return { ...account, connection: bank.connection }
}

describe('POST /v1/transfers: field rules', () => {
  it('201 with a queued transfer of the seed shape', async () => {
    const transfer = await created()
    expect(Transfer.safeParse(transfer).success).toBe(true)
    expect(transfer).toEqual({
      id: expect.any(String),
      status: 'queued',
      type: 'internal',
      requestedAmount: { type: 'money', value: '10.00', currency: 'USD' },
      sourceAccountId: usdA.id,
      destination: { type: 'account', accountId: usdB.id },
      transferType: 'internal',
      clientReference: 'INV-1001',
      createdAt: now(),
      updatedAt: now(),
      memo: 'March rent',
    })
  })

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['type other than internal', { type: 'external' }],
    ['transferType other than internal', { transferType: 'ach' }],
    ['a negative amount', { amount: { type: 'money', value: '-10.00', currency: 'USD' } }],
    ['a zero amount', { amount: { type: 'money', value: '0.00', currency: 'USD' } }],
    ['an amount as a JS number', { amount: { type: 'money', value: 10, currency: 'USD' } }],
    ['an amount whose type is not money', { amount: { type: 'cash', value: '10.00', currency: 'USD' } }],
    ['an empty clientReference', { clientReference: '' }],
    ['a clientReference of 141 characters', { clientReference: 'x'.repeat(141) }],
    ['a memo of 501 characters', { memo: 'm'.repeat(501) }],
    ['an executionDate that is not a date', { executionDate: 'tomorrow' }],
    ['a skipPreflight that is not a boolean', { skipPreflight: 'yes' }],
    ['a sourceAccountId that is not a uuid', { sourceAccountId: 'acc_1' }],
    ['a destination without accountId', { destination: { type: 'account' } }],
    ['a missing clientReference', { clientReference: undefined }],
  ]
  for (const [name, overrides] of invalid) {
    it(`validation_error (400): ${name}`, async () => {
      const response = await create(body(overrides))
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('validation_error')
    })
  }

  it('accepts a clientReference of 140 characters, a memo of 500, null memo and executionDate', async () => {
    expect((await create(body({ clientReference: 'c'.repeat(140), memo: 'm'.repeat(500) }))).status).toBe(201)
    const nulls = await created(body({ memo: null, executionDate: null, skipPreflight: false }))
    expect(nulls.memo).toBeNull()
  })

  it('validation_error: the source and destination must be different accounts', async () => {
    const response = await create(body({ destination: { type: 'account', accountId: usdA.id } }))
    expect(response.status).toBe(400)
    expect(response.body.error.details[0].path).toBe('body.destination.accountId')
  })

  it("validation_error: the amount's currency must be the source account's currency", async () => {
    const response = await create(body({ amount: { type: 'money', value: '10.00', currency: 'EUR' } }))
    expect(response.status).toBe(400)
    expect(response.body.error.details[0].path).toBe('body.amount.currency')
  })

  it("validation_error: internal transfers do not convert, the destination's currency must match too", async () => {
    const response = await create(body({ destination: { type: 'account', accountId: gbpA.id } }))
    expect(response.status).toBe(400)
    expect(response.body.error.details[0].path).toBe('body.amount.currency')
  })

  it('404 not_found: an unknown account, or an account of another organization', async () => {
    const unknown = await create(body({ sourceAccountId: '00000000-0000-4000-8000-000000000000' }))
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.details[0].path).toBe('body.sourceAccountId')
    const foreign = await create(body({ destination: { type: 'account', accountId: otherOrgAccount.id } }))
    expect(foreign.status).toBe(404)
    expect(foreign.body.error.details[0].path).toBe('body.destination.accountId')
  })

  it('validation_error: an executionDate in the past', async () => {
    const response = await create(body({ executionDate: '2020-01-01' }))
    expect(response.status).toBe(400)
    expect(response.body.error.details[0].path).toBe('body.executionDate')
  })

  it('executionDate in the future: the transfer waits queued until that date, then proceeds', async () => {
    const transfer = await created(body({ executionDate: '2026-04-01' }))
    await harness.sandbox.advance(86400)
    expect((await get(transfer.id)).status).toBe('queued')
    const untilDate = (Date.parse('2026-04-01T00:00:00Z') - harness.sandbox.clock.now().getTime()) / 1000
    await harness.sandbox.advance(untilDate)
    expect((await get(transfer.id)).status).toBe('executing')
    await harness.sandbox.advance(STEP)
    expect((await get(transfer.id)).status).toBe('completed')
  })
})

describe('transfer status on the virtual clock', () => {
  it('queued → executing → completed, one step every transferStepSeconds, executedAmount once executed', async () => {
    const transfer = await created()
    expect(transfer.executedAmount).toBeUndefined()
    await harness.sandbox.advance(STEP - 1)
    expect((await get(transfer.id)).status).toBe('queued')
    await harness.sandbox.advance(1)
    expect(await get(transfer.id)).toMatchObject({ status: 'executing', updatedAt: now() })
    await harness.sandbox.advance(STEP)
    expect(await get(transfer.id)).toMatchObject({
      status: 'completed',
      updatedAt: now(),
      executedAmount: { type: 'money', value: '10.00', currency: 'USD' },
    })
  })

  it('a completed transfer posts an outflow on the source and an inflow on the destination', async () => {
    const reference = 'PAY-POSTS-1'
    const head = await streamHead(harness)
    const transfer = await created(body({ clientReference: reference }))
    await harness.sandbox.advance(2 * STEP)
    const today = now().slice(0, 10)
    const out = (await listAll(harness, `accountId=${usdA.id}&rail=internalTransfer&limit=500`)).filter(
      (t) => t.paymentReference === reference,
    )
    const into = (await listAll(harness, `accountId=${usdB.id}&rail=internalTransfer&limit=500`)).filter(
      (t) => t.paymentReference === reference,
    )
    expect(out).toEqual([
      expect.objectContaining({
        amount: '-10.00',
        currency: 'USD',
        entryType: 'debit',
        status: 'posted',
        rail: 'internalTransfer',
        postedDate: today,
        description: expect.stringContaining('March rent'),
        counterpartyName: usdB.name,
      }),
    ])
    expect(into).toEqual([
      expect.objectContaining({
        amount: '10.00',
        entryType: 'credit',
        status: 'posted',
        rail: 'internalTransfer',
        postedDate: today,
        description: expect.stringContaining('March rent'),
      }),
    ])
    // They are bank-reported lines like any other: they enter the sync stream.
    const { events } = await drain(harness, head, new Map())
    expect(events.filter((e) => e.type === 'added').map((e) => e.transaction.id)).toEqual(
      expect.arrayContaining([out[0].id, into[0].id]),
    )
    expect((await get(transfer.id)).status).toBe('completed')
  })

  it('pending_bank_approval: an amount above the threshold waits for the bank approval', async () => {
    const transfer = await created(body({ amount: { type: 'money', value: '1000.01', currency: 'USD' } }))
    await harness.sandbox.advance(STEP)
    expect((await get(transfer.id)).status).toBe('pending_bank_approval')
    await harness.sandbox.advance(7 * 86400)
    expect((await get(transfer.id)).status).toBe('pending_bank_approval')
  })

  it('an amount equal to the threshold needs no approval', async () => {
    const transfer = await created(body({ amount: { type: 'money', value: '1000.00', currency: 'USD' } }))
    await harness.sandbox.advance(2 * STEP)
    expect((await get(transfer.id)).status).toBe('completed')
  })

  it('pending_bank_approval, then the approval given (forced executing) completes on the clock', async () => {
    const transfer = await created(body({ amount: { type: 'money', value: '2000.00', currency: 'USD' } }))
    await harness.sandbox.advance(STEP)
    const forced = await force(transfer.id, { status: 'executing' })
    expect(forced.status).toBe(200)
    expect(forced.body.status).toBe('executing')
    await harness.sandbox.advance(STEP)
    expect((await get(transfer.id)).status).toBe('completed')
  })

  it('failed at preflight: available balance below the amount gives 201 failed with failureReason', async () => {
    const poor = await accountWithAvailable('50.00')
    const transfer = await created(
      body({ sourceAccountId: poor.id, amount: { type: 'money', value: '50.01', currency: 'USD' } }),
    )
    expect(transfer.status).toBe('failed')
    expect(transfer.failureReason.message).toMatch(/available balance/)
    await harness.sandbox.advance(2 * STEP)
    expect((await get(transfer.id)).status).toBe('failed')
    const lines = await listAll(harness, `accountId=${poor.id}&rail=internalTransfer`)
    expect(lines).toEqual([])
  })

  it('preflight passes when the available balance equals the amount', async () => {
    const exact = await accountWithAvailable('50.00')
    const transfer = await created(
      body({ sourceAccountId: exact.id, amount: { type: 'money', value: '50.00', currency: 'USD' } }),
    )
    expect(transfer.status).toBe('queued')
  })

  it('skipPreflight: the transfer goes to the bank, which fails it at execution for lack of funds', async () => {
    const poor = await accountWithAvailable('5.00')
    const transfer = await created(body({ sourceAccountId: poor.id, skipPreflight: true }))
    expect(transfer.status).toBe('queued')
    await harness.sandbox.advance(STEP)
    expect((await get(transfer.id)).status).toBe('executing')
    await harness.sandbox.advance(STEP)
    const failed = await get(transfer.id)
    expect(failed.status).toBe('failed')
    expect(failed.failureReason.message).toMatch(/insufficient/)
    expect(failed.executedAmount).toBeUndefined()
  })
})

describe('POST /v1/transfers/{id}/retry', () => {
  it('200: a failed transfer goes back to queued without failureReason and then completes', async () => {
    const poor = await accountWithAvailable('1.00')
    const transfer = await created(body({ sourceAccountId: poor.id }))
    expect(transfer.status).toBe('failed')
    await bankReports(harness, poor.connection.id, { accountId: poor.id, amount: '100.00' })
    const retried = await retry(transfer.id)
    expect(retried.status).toBe(200)
    expect(retried.body.status).toBe('queued')
    expect(retried.body.failureReason).toBeUndefined()
    await harness.sandbox.advance(2 * STEP)
    expect((await get(transfer.id)).status).toBe('completed')
  })

  it('200: a returned transfer can be retried', async () => {
    const transfer = await created()
    expect((await force(transfer.id, { status: 'returned' })).status).toBe(200)
    const retried = await retry(transfer.id)
    expect(retried.status).toBe(200)
    expect(retried.body.status).toBe('queued')
  })

  it('409 transfer_not_retryable from queued, completed and cancelled', async () => {
    const queued = await created()
    const completed = await created()
    await force(completed.id, { status: 'completed' })
    const cancelled = await created()
    await force(cancelled.id, { status: 'cancelled' })
    for (const id of [queued.id, completed.id, cancelled.id]) {
      const response = await retry(id)
      expect(response.status).toBe(409)
      expect(response.body.error.code).toBe('transfer_not_retryable')
    }
  })

  it('404 for an unknown transfer', async () => {
    expect((await retry('00000000-0000-4000-8000-000000000000')).status).toBe(404)
  })
})

describe('POST /_sandbox/transfers/{id}/outcome', () => {
  it('completed posts the two transactions and sets executedAmount', async () => {
    const transfer = await created(body({ clientReference: 'FORCED-1' }))
    const forced = await force(transfer.id, { status: 'completed' })
    expect(forced.body).toMatchObject({ status: 'completed', executedAmount: transfer.requestedAmount })
    const lines = (await listAll(harness, 'rail=internalTransfer&limit=500')).filter(
      (t) => t.paymentReference === 'FORCED-1',
    )
    expect(lines.map((t) => t.amount).sort()).toEqual(['-10.00', '10.00'])
  })

  it('failed without failureReason gets a default one; cancelled keeps the given one', async () => {
    const a = await created()
    expect((await force(a.id, { status: 'failed' })).body.failureReason.message).toMatch(/failed/)
    const b = await created()
    const cancelled = await force(b.id, { status: 'cancelled', failureReason: { message: 'Stopped by ops' } })
    expect(cancelled.body).toMatchObject({
      status: 'cancelled',
      failureReason: { message: 'Stopped by ops' },
    })
  })

  it('409 when the transfer is already terminal', async () => {
    const transfer = await created()
    await force(transfer.id, { status: 'completed' })
    const again = await force(transfer.id, { status: 'failed' })
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('transfer_terminal')
  })

  it('unknown halts the automatic steps until the next forced outcome', async () => {
    const transfer = await created()
    await force(transfer.id, { status: 'unknown' })
    await harness.sandbox.advance(10 * STEP)
    expect((await get(transfer.id)).status).toBe('unknown')
  })

  it('400 for an unknown status or a failureReason on a non-failure status; 404 for an unknown transfer', async () => {
    const transfer = await created()
    expect((await force(transfer.id, { status: 'done' })).status).toBe(400)
    expect((await force(transfer.id, { status: 'executing', failureReason: { message: 'x' } })).status).toBe(
      400,
    )
    expect((await force('00000000-0000-4000-8000-000000000000', { status: 'failed' })).status).toBe(404)
  })
})

describe('Idempotency-Key', () => {
  const transferCount = () => harness.sandbox.ctx.state.transfers.size

  it('an identical retry replays the first response: same status and body, Idempotent-Replayed: true', async () => {
    const first = await create(body(), { idempotencyKey: 'key-identical' })
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const count = transferCount()
    await harness.sandbox.advance(STEP)
    const again = await create(body(), { idempotencyKey: 'key-identical' })
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(transferCount()).toBe(count)
  })

  it('the order of JSON keys does not make a payload different', async () => {
    const payload = body()
    const reordered = Object.fromEntries(Object.entries(payload).reverse())
    const first = await create(payload, { idempotencyKey: 'key-order' })
    const again = await create(reordered, { idempotencyKey: 'key-order' })
    expect(again.body.id).toBe(first.body.id)
  })

  it('a different payload under the same key is 409 idempotency_key_reused', async () => {
    await create(body(), { idempotencyKey: 'key-different' })
    const count = transferCount()
    const response = await create(body({ memo: 'another memo' }), { idempotencyKey: 'key-different' })
    expect(response.status).toBe(409)
    expect(response.body.error.code).toBe('idempotency_key_reused')
    expect(transferCount()).toBe(count)
  })

  it('a key lives 48 hours of virtual time (at least 24): replayed after 24 h, a new request after 48 h', async () => {
    const first = await create(body(), { idempotencyKey: 'key-window' })
    await harness.sandbox.advance(24 * 3600)
    expect((await create(body(), { idempotencyKey: 'key-window' })).body.id).toBe(first.body.id)
    await harness.sandbox.advance(24 * 3600 - 1)
    expect((await create(body(), { idempotencyKey: 'key-window' })).body.id).toBe(first.body.id)
    await harness.sandbox.advance(1)
    const later = await create(body(), { idempotencyKey: 'key-window' })
    expect(later.status).toBe(201)
    expect(later.body.id).not.toBe(first.body.id)
    expect(later.headers.get('idempotent-replayed')).toBeNull()
  })

  it('keys are scoped per organization', async () => {
    await create(body(), { idempotencyKey: 'key-org' })
    const theirs = await create(
      body({
        sourceAccountId: otherOrgAccount.id,
        destination: { type: 'account', accountId: otherOrgAccount.id },
      }),
      { idempotencyKey: 'key-org', key: harness.keyFor('other organization') },
    )
    // Their request is judged on its own: not a conflict with ours, but its own validation error.
    expect(theirs.status).toBe(400)
    expect(theirs.body.error.code).toBe('validation_error')
  })

  it('keys are scoped per operation: the same key on a create and a retry are independent', async () => {
    const transfer = await create(body(), { idempotencyKey: 'key-op' })
    await force(transfer.body.id, { status: 'failed' })
    const retried = await retry(transfer.body.id, { idempotencyKey: 'key-op' })
    expect(retried.status).toBe(200)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
  })

  it('retry: an identical retry is replayed, the same key for another transfer is 409', async () => {
    const a = await created()
    const b = await created()
    await force(a.id, { status: 'failed' })
    await force(b.id, { status: 'failed' })
    const first = await retry(a.id, { idempotencyKey: 'key-retry' })
    expect(first.status).toBe(200)
    const again = await retry(a.id, { idempotencyKey: 'key-retry' })
    expect(again.status).toBe(200)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    const other = await retry(b.id, { idempotencyKey: 'key-retry' })
    expect(other.status).toBe(409)
    expect(other.body.error.code).toBe('idempotency_key_reused')
  })

  it('without a key, two identical requests make two transfers', async () => {
    const a = await created()
    const b = await created()
    expect(a.id).not.toBe(b.id)
  })

  it('a request that failed validation binds no key', async () => {
    expect(
      (await create(body({ clientReference: '' }), { idempotencyKey: 'key-invalid-first' })).status,
    ).toBe(400)
    expect((await create(body(), { idempotencyKey: 'key-invalid-first' })).status).toBe(201)
  })

  for (const [name, key] of [
    ['an empty key', ''],
    // HTTP trims the white space around a header value: only white space arrives as an empty key.
    ['a key of only white space', '  \t '],
    ['a key of 256 characters', 'k'.repeat(256)],
  ] as const) {
    it(`validation_error (400): ${name}`, async () => {
      const response = await create(body(), { idempotencyKey: key })
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('validation_error')
      expect(response.body.error.details[0].path).toBe('header.Idempotency-Key')
    })
  }

  it('a key of 255 characters with inner spaces is valid', async () => {
    expect((await create(body(), { idempotencyKey: `a ${'k'.repeat(253)}` })).status).toBe(201)
  })
})

describe('GET /v1/transfers/{id}, scopes and isolation', () => {
  it('answers the current state of the transfer', async () => {
    const transfer = await created()
    await harness.sandbox.advance(STEP)
    const response = await harness.request('GET', `/v1/transfers/${transfer.id}`)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ ...transfer, status: 'executing', updatedAt: now() })
  })

  it("403 with the 'read only' key on POST /v1/transfers and retry; it may read", async () => {
    const readOnly = harness.keyFor('read only')
    const transfer = await created()
    const post = await create(body(), { key: readOnly })
    expect(post.status).toBe(403)
    expect(post.body.error.code).toBe('insufficient_scope')
    expect((await retry(transfer.id, { key: readOnly })).status).toBe(403)
    expect((await harness.request('GET', `/v1/transfers/${transfer.id}`, { key: readOnly })).status).toBe(200)
  })

  it("organization isolation: another organization's key gets 404 for our transfer", async () => {
    const transfer = await created()
    const other = harness.keyFor('other organization')
    expect((await harness.request('GET', `/v1/transfers/${transfer.id}`, { key: other })).status).toBe(404)
    expect((await retry(transfer.id, { key: other })).status).toBe(404)
  })
})

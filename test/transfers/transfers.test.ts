import { randomUUID } from 'node:crypto'
import { Decimal } from 'decimal.js'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AlertNotice } from '../../src/alerts/index.js'
import { createBankClient, type TransferCreateParams } from '../../src/api-client/index.js'
import { createLogger } from '../../src/observability/index.js'
import {
  createTransfer,
  getTransfer,
  pollDueTransfers,
  retryTransfer,
  TransferError,
  type TrackerContext,
  type TransferRecord,
} from '../../src/transfers/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

const REMINDER_SECONDS = 300
const MAX_POLL_SECONDS = 60
let harness: SandboxHarness
let database: TestDatabase
let ctx: TrackerContext
let published: AlertNotice[]
let source: any
let destination: any

const operatingUsd = (accounts: any[]) => accounts.find((a) => a.currency === 'USD' && a.type === 'checking')

/** A bank client whose every answer is lost after the bank acted on the request: a crash before the answer. */
function answerLosingContext(): TrackerContext {
  const client = createBankClient({
    baseUrl: harness.url,
    apiKey: harness.apiKey,
    maxRetries: 0,
    fetch: async (input, init) => {
      await fetch(input, init)
      throw new TypeError('fetch failed: the process died before the answer arrived')
    },
  })
  return { ...ctx, client }
}

beforeAll(async () => {
  harness = await startSandbox({
    scheduledSyncIntervalSeconds: 0,
    transferApprovalThreshold: '1000.00',
    transferStepSeconds: 5,
  })
  source = operatingUsd((await connectReadyBank(harness)).accounts)
  destination = operatingUsd((await connectReadyBank(harness)).accounts)
  database = await createTestDatabase('transfers')
  published = []
  ctx = {
    db: database.db,
    client: createBankClient({ baseUrl: harness.url, apiKey: harness.apiKey }),
    clock: harness.sandbox.clock,
    logger: createLogger({ level: 'silent' }),
    alerts: {
      publish: async (notices) => {
        published.push(...notices)
      },
    },
    pollSchedule: { initialSeconds: 10, factor: 2, maxSeconds: MAX_POLL_SECONDS },
    reminderSeconds: REMINDER_SECONDS,
  }
})

afterAll(async () => {
  await database?.drop()
  await harness?.close()
})

function params(overrides: Partial<TransferCreateParams> = {}): TransferCreateParams {
  return {
    type: 'internal',
    amount: { type: 'money', value: '10.00', currency: 'USD' },
    sourceAccountId: source.id,
    destination: { type: 'account', accountId: destination.id },
    transferType: 'internal',
    clientReference: `REF-${randomUUID().slice(0, 8)}`,
    ...overrides,
  }
}

/** Moves both clocks (bank and bankrec share the virtual one) and lets the tracker poll what is due. */
async function elapse(seconds: number): Promise<void> {
  await harness.sandbox.advance(seconds)
  await pollDueTransfers(ctx)
}

async function bankTransfersWithReference(reference: string): Promise<any[]> {
  const state = await harness.request('GET', '/_sandbox/state', { key: null })
  return state.body.transfers.filter((t: any) => t.clientReference === reference)
}

async function force(transfer: TransferRecord, status: string, message?: string): Promise<void> {
  const answer = await harness.request('POST', `/_sandbox/transfers/${transfer.bankTransferId}/outcome`, {
    key: null,
    body: { status, ...(message ? { failureReason: { message } } : {}) },
  })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
}

async function appEventsOf(transferId: string) {
  const rows = await sql<{ id: string; type: string; payload: any }>`
    select id, type, payload from app_events where payload->>'transferId' = ${transferId} order by created_at, id
  `.execute(database.db)
  return rows.rows
}

const noticesOf = (transfer: TransferRecord) =>
  published.filter((n) => 'transfer' in n.subject && n.subject.transfer.id === transfer.bankTransferId)

async function created(overrides: Partial<TransferCreateParams> = {}): Promise<TransferRecord> {
  const { transfer } = await createTransfer(ctx, params(overrides))
  expect(transfer.bankTransferId).not.toBeNull()
  return transfer
}

describe('tracking a transfer to its outcome', () => {
  it('polls a transfer to completed and emits transfer.completed once, with no alert', async () => {
    const transfer = await created()
    expect(transfer.status).toBe('queued')
    for (let i = 0; i < 6; i++) await elapse(MAX_POLL_SECONDS)
    const done = (await getTransfer(ctx, transfer.id))!
    expect(done).toMatchObject({
      status: 'completed',
      executedAmount: { value: '10.00', currency: 'USD' },
      nextPollAt: null,
    })
    expect(done.completedAt).not.toBeNull()
    const events = await appEventsOf(transfer.id)
    expect(events.map((e) => e.type)).toEqual(['transfer.completed'])
    expect(events[0]!.payload).toMatchObject({
      bankTransferId: transfer.bankTransferId,
      clientReference: transfer.clientReference,
      amount: { value: '10.00', currency: 'USD' },
      status: 'completed',
      failureReason: null,
    })
    expect(noticesOf(transfer)).toEqual([])
  })

  it.each([
    ['failed', 'critical', 'The beneficiary account is frozen.'],
    ['returned', 'critical', 'Returned by the receiving bank.'],
    ['cancelled', 'warning', 'Cancelled by the bank.'],
  ])(
    'alerts a %s transfer with its failureReason and emits transfer.failed',
    async (status, severity, reason) => {
      const transfer = await created()
      await pollDueTransfers(ctx)
      await force(transfer, status, reason)
      await elapse(MAX_POLL_SECONDS)
      await elapse(MAX_POLL_SECONDS)
      const notices = noticesOf(transfer)
      expect(notices).toHaveLength(1)
      expect(notices[0]).toMatchObject({ type: 'alert', kind: status, severity })
      expect(notices[0]!.fields).toContainEqual({ label: 'Reason', value: reason })
      const events = await appEventsOf(transfer.id)
      expect(events.map((e) => e.type)).toEqual(['transfer.failed'])
      expect(events[0]!.payload).toMatchObject({ status, failureReason: { message: reason } })
      expect((await getTransfer(ctx, transfer.id))!).toMatchObject({
        status,
        failureReason: { message: reason },
      })
    },
  )

  it('alerts pending_bank_approval once, reminds on the virtual clock, and notes the approval', async () => {
    // Above the sandbox's approval threshold; the preflight is skipped so any balance will do.
    const transfer = await created({
      amount: { type: 'money', value: '5000.00', currency: 'USD' },
      skipPreflight: true,
    })
    for (let i = 0; i < 11; i++) await elapse(MAX_POLL_SECONDS)
    const waiting = noticesOf(transfer)
    expect(waiting.map((n) => [n.type, n.kind])).toEqual([
      ['alert', 'pending_bank_approval'],
      ['reminder', 'pending_bank_approval'],
      ['reminder', 'pending_bank_approval'],
    ])
    expect(waiting[0]!.action).toMatch(/Approve in the bank portal/)
    expect(new Set(waiting.map((n) => n.id)).size).toBe(3)

    await force(transfer, 'completed')
    await elapse(MAX_POLL_SECONDS)
    await elapse(MAX_POLL_SECONDS)
    expect(noticesOf(transfer).map((n) => n.type)).toEqual(['alert', 'reminder', 'reminder', 'recovery'])
    expect((await appEventsOf(transfer.id)).map((e) => e.type)).toEqual(['transfer.completed'])
  })

  it('alerts a transfer in an unknown state and notes when it is known again', async () => {
    const transfer = await created()
    await pollDueTransfers(ctx)
    await force(transfer, 'unknown')
    await elapse(MAX_POLL_SECONDS)
    await elapse(MAX_POLL_SECONDS)
    expect(noticesOf(transfer).map((n) => [n.type, n.kind])).toEqual([['alert', 'unknown']])
    await force(transfer, 'failed', 'Rejected after investigation.')
    await elapse(MAX_POLL_SECONDS)
    expect(noticesOf(transfer).map((n) => [n.type, n.kind])).toEqual([
      ['alert', 'unknown'],
      ['alert', 'failed'],
    ])
    expect((await appEventsOf(transfer.id)).map((e) => e.type)).toEqual(['transfer.failed'])
  })

  it('alerts a transfer the bank failed at creation (preflight) and emits transfer.failed', async () => {
    const account = (await harness.request('GET', `/v1/accounts/${source.id}`)).body
    const tooMuch = new Decimal(account.availableBalance).plus(1).toFixed(2)
    const transfer = await created({ amount: { type: 'money', value: tooMuch, currency: 'USD' } })
    expect(transfer.status).toBe('failed')
    // The create answer is recorded; the tracker's first poll, at once, turns it into the alert and the event.
    await pollDueTransfers(ctx)
    expect(noticesOf(transfer).map((n) => [n.type, n.kind])).toEqual([['alert', 'failed']])
    expect((await appEventsOf(transfer.id)).map((e) => e.type)).toEqual(['transfer.failed'])
    expect((await getTransfer(ctx, transfer.id))!.nextPollAt).toBeNull()
  })
})

describe('idempotency of creation', () => {
  it('a crash between storing the key and the bank answer, then a retry, leaves one transfer', async () => {
    const request = params()
    const lost = await createTransfer(answerLosingContext(), request).catch((error: unknown) => error)
    expect(lost).toBeInstanceOf(TransferError)
    expect((lost as TransferError).code).toBe('bank_unavailable')
    const transferId = (lost as TransferError).transferId!
    const stored = (await getTransfer(ctx, transferId))!
    expect(stored).toMatchObject({ status: 'submitting', bankTransferId: null })
    // The bank did act on the request whose answer was lost.
    expect(await bankTransfersWithReference(request.clientReference)).toHaveLength(1)

    const resumed = await retryTransfer(ctx, transferId)
    const atBank = await bankTransfersWithReference(request.clientReference)
    expect(atBank).toHaveLength(1)
    expect(resumed).toMatchObject({ id: transferId, bankTransferId: atBank[0].id, status: 'queued' })
    expect(resumed.attempts).toEqual([
      expect.objectContaining({ kind: 'create', idempotencyKey: stored.idempotencyKey, state: 'answered' }),
    ])
  })

  it('the same call repeated with the caller key after a lost answer resumes it and leaves one transfer', async () => {
    const request = params()
    const key = `order-${randomUUID()}`
    await expect(createTransfer(answerLosingContext(), request, { idempotencyKey: key })).rejects.toThrow(
      TransferError,
    )
    const again = await createTransfer(ctx, request, { idempotencyKey: key })
    const thirdTime = await createTransfer(ctx, request, { idempotencyKey: key })
    expect(again.replayed).toBe(true)
    expect(thirdTime.transfer).toMatchObject({
      id: again.transfer.id,
      bankTransferId: again.transfer.bankTransferId,
    })
    expect(await bankTransfersWithReference(request.clientReference)).toHaveLength(1)
    expect(again.transfer.idempotencyKey).toBe(key)
  })

  it('refuses a caller key reused with a different request', async () => {
    const key = `order-${randomUUID()}`
    await createTransfer(ctx, params(), { idempotencyKey: key })
    const error = await createTransfer(ctx, params({ memo: 'other' }), { idempotencyKey: key }).catch(
      (e) => e,
    )
    expect(error).toMatchObject({ kind: 'conflict', code: 'idempotency_key_reused' })
  })

  it('does not resend a request stored longer ago than the bank keeps its key', async () => {
    const lost = (await createTransfer(answerLosingContext(), params()).catch((e) => e)) as TransferError
    await harness.sandbox.advance(24 * 3600)
    const error = await retryTransfer(ctx, lost.transferId!).catch((e) => e)
    expect(error).toMatchObject({ kind: 'conflict', code: 'idempotency_window_passed' })
  })

  it('records a request the bank refuses as rejected, and does not retry it', async () => {
    const error = await createTransfer(
      ctx,
      params({ destination: { type: 'account', accountId: randomUUID() } }),
    ).catch((e) => e)
    expect(error).toBeInstanceOf(TransferError)
    expect(error.kind).toBe('not_found')
    const record = (await getTransfer(ctx, error.transferId))!
    expect(record.status).toBe('rejected')
    expect(record.rejection).toMatchObject({ status: 404 })
    await expect(retryTransfer(ctx, record.id)).rejects.toMatchObject({ code: 'transfer_not_retryable' })
  })
})

describe('retrying a failed transfer', () => {
  it('retries with a new key stored before the call, resumes a lost retry with that key, and tracks it again', async () => {
    const transfer = await created()
    await pollDueTransfers(ctx)
    await force(transfer, 'failed', 'Temporary bank outage.')
    await elapse(MAX_POLL_SECONDS)
    await expect(retryTransfer(ctx, transfer.id).then(() => undefined)).resolves.toBeUndefined()
    const afterRetry = (await getTransfer(ctx, transfer.id))!
    expect(afterRetry.attempts.map((a) => [a.kind, a.state])).toEqual([
      ['create', 'answered'],
      ['retry', 'answered'],
    ])
    expect(afterRetry.attempts[1]!.idempotencyKey).not.toBe(transfer.idempotencyKey)
    expect(afterRetry.status).toBe('queued')

    await force(afterRetry, 'failed', 'Outage again.')
    await elapse(MAX_POLL_SECONDS)
    await expect(retryTransfer(answerLosingContext(), transfer.id)).rejects.toMatchObject({
      code: 'bank_unavailable',
    })
    const resumed = await retryTransfer(ctx, transfer.bankTransferId!)
    expect(resumed.attempts.map((a) => [a.kind, a.state])).toEqual([
      ['create', 'answered'],
      ['retry', 'answered'],
      ['retry', 'answered'],
    ])
    for (let i = 0; i < 4; i++) await elapse(MAX_POLL_SECONDS)
    expect(await bankTransfersWithReference(transfer.clientReference)).toHaveLength(1)
    expect((await getTransfer(ctx, transfer.id))!.status).toBe('completed')
    expect((await appEventsOf(transfer.id)).map((e) => e.type)).toEqual([
      'transfer.failed',
      'transfer.failed',
      'transfer.completed',
    ])
    expect(noticesOf(transfer).map((n) => n.kind)).toEqual(['failed', 'failed'])
  })

  it('refuses to retry a transfer that has not failed', async () => {
    const transfer = await created()
    await expect(retryTransfer(ctx, transfer.id)).rejects.toMatchObject({
      kind: 'conflict',
      code: 'transfer_not_retryable',
    })
  })
})

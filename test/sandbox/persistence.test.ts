import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createVirtualClock } from '../../src/clock/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

let directory: string
let stateFile: string
let first: SandboxHarness
let second: SandboxHarness | undefined

/** What the first sandbox held and handed out before it stopped. */
const before = {
  state: undefined as unknown,
  readyId: '',
  pendingId: '',
  transferId: '',
  cursor: '',
  afterCursorId: '',
  now: new Date(0),
}

const frozenAt = (now: Date) => createVirtualClock({ start: now, followRealTime: false })

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'sandbox-persistence-'))
  stateFile = path.join(directory, 'sandbox-state.json')
  first = await startSandbox({ stateFile })
  const ready = await connectReadyBank(first)
  const other = await connectReadyBank(first)
  before.readyId = ready.connection.id
  const usd = (accounts: any[]) => accounts.find((a) => a.currency === 'USD' && a.type === 'checking')

  const head = await first.request('GET', `/v1/transactions/sync?connectionId=${before.readyId}&limit=500`)
  expect(head.status).toBe(200)
  let page = head.body
  while (page.hasMore) {
    page = (
      await first.request(
        'GET',
        `/v1/transactions/sync?connectionId=${before.readyId}&cursor=${page.nextCursor}`,
      )
    ).body
  }
  before.cursor = page.nextCursor

  const added = await first.request('POST', `/_sandbox/connections/${before.readyId}/transactions`, {
    key: null,
    body: { amount: '125.00', counterpartyName: 'After The Cursor Ltd' },
  })
  expect(added.status).toBe(201)
  before.afterCursorId = added.body.id

  const transfer = await first.request('POST', '/v1/transfers', {
    body: {
      type: 'internal',
      amount: { type: 'money', value: '10.00', currency: 'USD' },
      sourceAccountId: usd(ready.accounts).id,
      destination: { type: 'account', accountId: usd(other.accounts).id },
      transferType: 'internal',
      clientReference: 'PERSIST-1',
    },
  })
  expect(transfer.status).toBeLessThan(300)
  expect(transfer.body.status).toBe('queued')
  before.transferId = transfer.body.id

  const pending = await first.request('POST', '/v1/connections', {
    body: { entityId: randomUUID(), institutionId: 'ins_harbor_national' },
  })
  before.pendingId = pending.body.id
  await first.request('PUT', `/v1/connections/${before.pendingId}/credentials`, {
    body: { bankUsername: 'delegate', password: 'correct horse' },
  })
  const completed = await first.request('PUT', `/v1/connections/${before.pendingId}/setupCompletion`)
  expect(completed.body.status).toBe('pendingActivation')

  before.state = (await first.request('GET', '/_sandbox/state', { key: null })).body
  before.now = first.sandbox.clock.now()
  await first.close()
  second = await startSandbox({ stateFile, clock: frozenAt(before.now) })
})

afterAll(async () => {
  await second?.close()
  await rm(directory, { recursive: true, force: true })
})

describe('a sandbox with a state file', () => {
  it('writes the file on close, readable only by its owner (it holds keys and secrets)', async () => {
    const text = await readFile(stateFile, 'utf8')
    expect(JSON.parse(text).version).toBe(1)
    const { stat } = await import('node:fs/promises')
    expect((await stat(stateFile)).mode & 0o077).toBe(0)
  })

  it('comes back with the same accounts, transactions and transfers', async () => {
    const after = await second!.request('GET', '/_sandbox/state', { key: null })
    expect(after.body).toEqual(before.state)
  })

  it('keeps the API key and the connections', async () => {
    expect(second!.apiKey).toBe(first.apiKey)
    const connection = await second!.request('GET', `/v1/connections/${before.readyId}`)
    expect(connection.status).toBe(200)
    expect(connection.body).toMatchObject({ kind: 'ready', status: 'active' })
  })

  it('accepts a sync cursor issued before the restart and continues the stream after it', async () => {
    const page = await second!.request(
      'GET',
      `/v1/transactions/sync?connectionId=${before.readyId}&cursor=${encodeURIComponent(before.cursor)}`,
    )
    expect(page.status).toBe(200)
    expect(page.body.events.map((e: any) => e.transaction.id)).toEqual([before.afterCursorId])
  })

  it('completes an activation that was pending when it stopped', async () => {
    await second!.sandbox.advance(
      second!.sandbox.ctx.settings.activationSeconds + second!.sandbox.ctx.settings.syncDurationSeconds,
    )
    const connection = await second!.request('GET', `/v1/connections/${before.pendingId}`)
    expect(connection.body).toMatchObject({ kind: 'ready', status: 'active', syncStatus: 'idle' })
    const accounts = await second!.request('GET', `/v1/accounts?connectionId=${before.pendingId}`)
    expect(accounts.body.data.length).toBeGreaterThan(0)
  })

  it('carries a transfer on through its steps', async () => {
    await second!.sandbox.advance(3 * second!.sandbox.ctx.settings.transferStepSeconds)
    const transfer = await second!.request('GET', `/v1/transfers/${before.transferId}`)
    expect(transfer.body.status).toBe('completed')
  })

  it('hands out ids that do not collide with the ones it handed out before the restart', async () => {
    const added = await second!.request('POST', `/_sandbox/connections/${before.readyId}/transactions`, {
      key: null,
      body: { amount: '5.00' },
    })
    expect(added.status).toBe(201)
    const created = await second!.request('POST', '/v1/connections', {
      body: { entityId: randomUUID(), institutionId: 'ins_granite_trust' },
    })
    expect(created.status).toBe(201)
    expect([before.readyId, before.pendingId]).not.toContain(created.body.id)
  })
})

import { randomBytes, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock, type Clock } from '../../src/clock/index.js'
import { loadConfig } from '../../src/config/index.js'
import { createListCursorCodec, listFingerprint } from '../../src/list-cursor/index.js'
import { createLogger } from '../../src/observability/index.js'
import { startSidecar, type Sidecar } from '../../src/sidecar/index.js'
import { onboardUsdCheckingAccount } from '../support/onboard-sandbox-connection.js'
import { dropSidecarSchemas, TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

const suffix = randomBytes(4).toString('hex')
const schema = `test_sidecar_transfer_list_${suffix}`
const TOKEN = 'test-token-0123456789'
let sidecar: Sidecar

// bankrec's clock, pinned while a transfer is created so that creation times, and a tie between two, are exact.
let pinnedAt: Date | undefined
const clock: Clock = { now: () => pinnedAt ?? systemClock.now() }

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${sidecar.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as any }
}

const onboardAccount = () => onboardUsdCheckingAccount(sidecar.context.bank)

async function createTransferAt(at: Date, reference: string, from: string, to: string) {
  pinnedAt = at
  try {
    return await api('POST', '/transfers', {
      type: 'internal',
      amount: { type: 'money', value: '25.00', currency: 'USD' },
      sourceAccountId: from,
      destination: { type: 'account', accountId: to },
      transferType: 'internal',
      clientReference: reference,
    })
  } finally {
    pinnedAt = undefined
  }
}

const references = (page: { data: { clientReference: string }[] }) => page.data.map((t) => t.clientReference)

let accountA: string
let accountB: string
let accountC: string
/** Every transfer's clientReference, newest first: L-3 and L-4 share a creation time, so the larger id is first. */
let newestFirst: string[]

beforeAll(async () => {
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `test-sidecar-transfer-list-${suffix}`,
    PORT: '0',
    KIT_API_TOKEN: TOKEN,
  })
  // The API role alone: no tracker moves a transfer on from the status the bank first answered.
  sidecar = await startSidecar({
    config,
    roles: new Set(['api']),
    logger: createLogger({ level: 'silent' }),
    clock,
    sandboxPort: 0,
  })
  accountA = await onboardAccount()
  accountB = await onboardAccount()
  accountC = await onboardAccount()

  const start = Date.now()
  const second = (n: number) => new Date(start + n * 1000)
  const created = [
    await createTransferAt(second(0), 'L-1', accountA, accountB),
    await createTransferAt(second(1), 'L-2', accountB, accountA),
    await createTransferAt(second(2), 'L-3', accountA, accountC),
    await createTransferAt(second(2), 'L-4', accountA, accountB),
  ]
  for (const answer of created) expect(answer.status, JSON.stringify(answer.body)).toBe(201)
  // An account the bank does not know: the bank refuses the request and the record stays as `rejected`.
  const refused = await createTransferAt(second(3), 'L-5', accountC, randomUUID())
  expect(refused.status).toBeGreaterThanOrEqual(400)
  expect(refused.status).toBeLessThan(500)

  const [, , third, fourth] = created.map((answer) => answer.body as { id: string; clientReference: string })
  const tie = [third!, fourth!].sort((x, y) => (x.id < y.id ? 1 : -1)).map((t) => t.clientReference)
  newestFirst = ['L-5', ...tie, 'L-2', 'L-1']
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await dropSidecarSchemas(schema)
})

describe('GET /api/transfers', () => {
  it('lists transfers newest first, each as its full record with its attempts', async () => {
    const list = await api('GET', '/transfers')
    expect(list.status, JSON.stringify(list.body)).toBe(200)
    expect(references(list.body)).toEqual(newestFirst)
    expect(list.body.pagination).toEqual({ hasMore: false, nextCursor: null })
    for (const record of list.body.data) {
      expect(record).toEqual((await api('GET', `/transfers/${record.id}`)).body)
      expect(record.amount).toEqual({ value: '25.00', currency: 'USD' })
      expect(record.attempts).toEqual([
        expect.objectContaining({
          kind: 'create',
          idempotencyKey: record.idempotencyKey,
          state: record.clientReference === 'L-5' ? 'rejected' : 'answered',
        }),
      ])
    }
  })

  it('pages with limit=2 through every transfer exactly once, across two created at the same instant', async () => {
    const pages: any[] = []
    let cursor: string | null = null
    do {
      const page = await api('GET', `/transfers?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      expect(page.status, JSON.stringify(page.body)).toBe(200)
      pages.push(page.body)
      cursor = page.body.pagination.nextCursor
    } while (cursor && pages.length < 10)
    expect(pages.map((page) => page.data.length)).toEqual([2, 2, 1])
    expect(pages.map((page) => page.pagination.hasMore)).toEqual([true, true, false])
    expect(pages.flatMap(references)).toEqual(newestFirst)
  })

  it('filters by status', async () => {
    const rejected = await api('GET', '/transfers?status=rejected')
    expect(references(rejected.body)).toEqual(['L-5'])
    expect(rejected.body.data[0].rejection).toMatchObject({ code: expect.any(String) })
    const queued = await api('GET', '/transfers?status=queued')
    expect(references(queued.body)).toEqual(newestFirst.filter((reference) => reference !== 'L-5'))
    expect(references((await api('GET', '/transfers?status=completed')).body)).toEqual([])
  })

  it('filters by an account, as the source or the destination', async () => {
    const ofB = await api('GET', `/transfers?accountId=${accountB}`)
    expect(references(ofB.body)).toEqual(
      newestFirst.filter((reference) => reference !== 'L-3' && reference !== 'L-5'),
    )
    const ofC = await api('GET', `/transfers?accountId=${accountC}`)
    expect(references(ofC.body)).toEqual(
      newestFirst.filter((reference) => reference === 'L-5' || reference === 'L-3'),
    )
    const queuedOfC = await api('GET', `/transfers?accountId=${accountC}&status=queued`)
    expect(references(queuedOfC.body)).toEqual(['L-3'])
    expect(references((await api('GET', `/transfers?accountId=${randomUUID()}`)).body)).toEqual([])
  })

  it('answers 400 invalid_cursor to a cursor presented with other filters, or malformed', async () => {
    const first = await api('GET', '/transfers?status=queued&limit=2')
    const cursor = first.body.pagination.nextCursor as string
    const next = await api('GET', `/transfers?status=queued&limit=2&cursor=${cursor}`)
    expect(next.status).toBe(200)
    expect([...references(first.body), ...references(next.body)]).toEqual(
      newestFirst.filter((reference) => reference !== 'L-5'),
    )
    for (const filters of ['status=rejected', '', `status=queued&accountId=${accountA}`]) {
      const refused = await api('GET', `/transfers?${filters}&limit=2&cursor=${cursor}`)
      expect(refused.status, filters).toBe(400)
      expect(refused.body.error.code).toBe('invalid_cursor')
      expect(refused.body.error.details).toEqual([
        { path: 'query.cursor', message: expect.stringContaining('other filters') },
      ])
    }
    const malformed = await api('GET', '/transfers?cursor=kc_not-a-cursor')
    expect(malformed.status).toBe(400)
    expect(malformed.body.error.code).toBe('invalid_cursor')
    expect(malformed.body.error.message).toContain('malformed')
    // Made by hand for the right list and filters, with a day that does not exist: refused before the database.
    const handMade = createListCursorCodec('key', 'kc_').encode(
      JSON.stringify(['2026-02-30 10:00:00.000001+00', randomUUID()]),
      listFingerprint('transfers', {}),
    )
    const impossible = await api('GET', `/transfers?cursor=${handMade}`)
    expect(impossible.status).toBe(400)
    expect(impossible.body.error.code).toBe('invalid_cursor')
  })

  it('answers 400 naming the field to a status, an account id or a limit it does not take', async () => {
    for (const [query, field] of [
      ['status=done', 'query.status'],
      ['accountId=not-an-id', 'query.accountId'],
      ['limit=501', 'query.limit'],
    ]) {
      const answer = await api('GET', `/transfers?${query}`)
      expect(answer.status, query).toBe(400)
      expect(answer.body.error.code).toBe('validation_error')
      expect(answer.body.error.details.map((detail: { path: string }) => detail.path)).toEqual([field])
      expect(answer.body.error.message).toContain(field)
    }
  })

  it('answers 401 without the token', async () => {
    const response = await fetch(`${sidecar.url}/api/transfers`)
    expect(response.status).toBe(401)
    expect(((await response.json()) as any).error.code).toBe('unauthorized')
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Transaction } from '../../src/api-client/index.js'
import { bankReports, listAll, streamHead } from '../support/ledger-helpers.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

let harness: SandboxHarness
let connectionId: string
let accountId: string
let otherConnectionId: string
let created: any[]

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0 })
  const bank = await connectReadyBank(harness)
  connectionId = bank.connection.id
  accountId = bank.accounts[0].id
  otherConnectionId = (await connectReadyBank(harness)).connection.id
  // Same-day and same-instant transactions on purpose: the sorts must break ties by id.
  created = []
  for (const [postedDate, status, rail] of [
    ['2026-02-10', 'posted', 'ach'],
    ['2026-02-11', 'posted', 'wire'],
    ['2026-02-11', 'pending', 'card'],
    ['2026-02-11', 'posted', 'ach'],
    ['2026-02-12', 'posted', 'wire'],
  ] as const) {
    created.push(
      await bankReports(harness, connectionId, { accountId, amount: '10.00', postedDate, status, rail }),
    )
  }
  await harness.sandbox.advance(60)
  // A later change gives one transaction a later updatedAt than the rest.
  const patched = await harness.request('PATCH', `/_sandbox/transactions/${created[0].id}`, {
    key: null,
    body: { description: 'changed later' },
  })
  expect(patched.status).toBe(200)
})
afterAll(() => harness.close())

function expectOrdered(items: any[], field: 'postedDate' | 'updatedAt', descending: boolean) {
  let ties = 0
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1][field]
    const b = items[i][field]
    if (a === b) {
      ties++
      expect(items[i - 1].id < items[i].id, `tie at ${a} broken by id`).toBe(true)
    } else {
      expect(descending ? a > b : a < b, `${a} then ${b}`).toBe(true)
    }
  }
  expect(ties, 'the data must contain ties to prove the tie-break').toBeGreaterThan(0)
}

describe('GET /v1/transactions', () => {
  it('answers the list envelope with transactions of the seed shape', async () => {
    const response = await harness.request('GET', `/v1/transactions?accountId=${accountId}`)
    expect(response.status).toBe(200)
    expect(response.body.meta.requestId).toMatch(/^req_/)
    expect(response.body.pagination).toHaveProperty('hasMore')
    for (const item of response.body.data) expect(Transaction.safeParse(item).success).toBe(true)
  })

  it('sort: default is -postedDate, ties broken by id', async () => {
    const items = await listAll(harness, `accountId=${accountId}&limit=500`)
    expectOrdered(items, 'postedDate', true)
  })

  for (const [sort, field, descending] of [
    ['postedDate', 'postedDate', false],
    ['-postedDate', 'postedDate', true],
    ['updatedAt', 'updatedAt', false],
    ['-updatedAt', 'updatedAt', true],
  ] as const) {
    it(`sort: ${sort} orders by ${field}${descending ? ' descending' : ''}, ties broken by id`, async () => {
      const items = await listAll(harness, `accountId=${accountId}&sort=${sort}&limit=500`)
      expect(items.length).toBeGreaterThan(created.length - 1)
      expectOrdered(items, field, descending)
    })

    it(`sort: ${sort} pages of 2 concatenate to the single-page order, no gaps or repeats`, async () => {
      const whole = await listAll(harness, `accountId=${accountId}&sort=${sort}&limit=500`)
      const paged = await listAll(harness, `accountId=${accountId}&sort=${sort}&limit=2`)
      expect(paged.map((t) => t.id)).toEqual(whole.map((t) => t.id))
    })
  }

  it('sort: an unknown sort is a validation error', async () => {
    const response = await harness.request('GET', '/v1/transactions?sort=amount')
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe('validation_error')
  })

  it('filter accountId: only that account', async () => {
    const items = await listAll(harness, `accountId=${accountId}&limit=500`)
    expect(items.every((t) => t.accountId === accountId)).toBe(true)
    for (const t of created) expect(items.map((i) => i.id)).toContain(t.id)
  })

  it('filter connectionId: only that connection', async () => {
    const mine = await listAll(harness, `connectionId=${connectionId}&limit=500`)
    const other = await listAll(harness, `connectionId=${otherConnectionId}&limit=500`)
    expect(mine.length).toBeGreaterThan(0)
    expect(other.length).toBeGreaterThan(0)
    expect(mine.every((t) => t.connectionId === connectionId)).toBe(true)
    expect(other.every((t) => t.connectionId === otherConnectionId)).toBe(true)
  })

  it('filter status: only that status', async () => {
    const pending = await listAll(harness, `accountId=${accountId}&status=pending&limit=500`)
    expect(pending.map((t) => t.id)).toContain(created[2].id)
    expect(pending.every((t) => t.status === 'pending')).toBe(true)
    const reversed = await listAll(harness, `accountId=${accountId}&status=reversed`)
    expect(reversed).toEqual([])
  })

  it('filter rail: only that rail', async () => {
    const wires = await listAll(harness, `accountId=${accountId}&rail=wire&limit=500`)
    expect(wires.map((t) => t.id)).toEqual(expect.arrayContaining([created[1].id, created[4].id]))
    expect(wires.every((t) => t.rail === 'wire')).toBe(true)
  })

  it('filter postedDateGte is inclusive and postedDateLt exclusive', async () => {
    const items = await listAll(
      harness,
      `accountId=${accountId}&postedDateGte=2026-02-11&postedDateLt=2026-02-12&sort=postedDate&limit=500`,
    )
    expect(items.every((t) => t.postedDate === '2026-02-11')).toBe(true)
    expect(items.map((t) => t.id).sort()).toEqual(
      expect.arrayContaining([created[1].id, created[2].id, created[3].id].sort()),
    )
    expect(items.map((t) => t.id)).not.toContain(created[4].id)
    expect(items.map((t) => t.id)).not.toContain(created[0].id)
  })

  it('filters: a bad value of each is a validation error naming it', async () => {
    for (const query of [
      'accountId=nope',
      'connectionId=nope',
      'status=settled',
      'rail=bitcoin',
      'postedDateGte=2026-13-01',
      'postedDateLt=yesterday',
    ]) {
      const response = await harness.request('GET', `/v1/transactions?${query}`)
      expect(response.status, query).toBe(400)
      expect(response.body.error.code).toBe('validation_error')
      expect(response.body.error.details[0].path).toBe(`query.${query.split('=')[0]}`)
    }
  })

  it('fields: only the named fields plus id, connectionId and accountId', async () => {
    const response = await harness.request(
      'GET',
      `/v1/transactions?accountId=${accountId}&fields=amount,status`,
    )
    expect(response.status).toBe(200)
    for (const item of response.body.data) {
      expect(Object.keys(item).sort()).toEqual(['accountId', 'amount', 'connectionId', 'id', 'status'])
    }
  })

  it('fields: an unknown field is a validation error', async () => {
    const response = await harness.request('GET', '/v1/transactions?fields=amount,orgId')
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe('validation_error')
  })

  it('limit: default 100', async () => {
    const all = await listAll(harness, 'limit=500')
    const response = await harness.request('GET', '/v1/transactions')
    expect(all.length).toBeGreaterThan(100)
    expect(response.body.data).toHaveLength(100)
    expect(response.body.pagination.hasMore).toBe(true)
  })

  it('limit: 1 and 500 are accepted and cap the page', async () => {
    const one = await harness.request('GET', '/v1/transactions?limit=1')
    expect(one.status).toBe(200)
    expect(one.body.data).toHaveLength(1)
    const many = await harness.request('GET', '/v1/transactions?limit=500')
    expect(many.status).toBe(200)
    expect(many.body.data.length).toBeLessThanOrEqual(500)
  })

  for (const limit of ['0', '501', '2.5', 'ten']) {
    it(`limit: ${limit} is a validation error`, async () => {
      const response = await harness.request('GET', `/v1/transactions?limit=${limit}`)
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('validation_error')
    })
  }

  describe('list cursors', () => {
    async function firstCursor(query: string) {
      const response = await harness.request('GET', `/v1/transactions?${query}&limit=1`)
      expect(response.body.pagination.hasMore).toBe(true)
      return response.body.pagination.nextCursor as string
    }

    it('invalid_cursor: a cursor is valid only for the same query', async () => {
      const cursor = await firstCursor(`accountId=${accountId}`)
      const response = await harness.request(
        'GET',
        `/v1/transactions?accountId=${accountId}&status=posted&limit=1&cursor=${cursor}`,
      )
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('invalid_cursor')
    })

    it('invalid_cursor: a cursor is valid only for the same sort order', async () => {
      const cursor = await firstCursor(`accountId=${accountId}&sort=postedDate`)
      const response = await harness.request(
        'GET',
        `/v1/transactions?accountId=${accountId}&sort=-postedDate&limit=1&cursor=${cursor}`,
      )
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('invalid_cursor')
    })

    it('invalid_cursor: a malformed cursor', async () => {
      const response = await harness.request('GET', '/v1/transactions?cursor=lc_garbage')
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('invalid_cursor')
    })

    it('invalid_cursor: a sync cursor is not a list cursor', async () => {
      const syncCursor = await streamHead(harness)
      const response = await harness.request(
        'GET',
        `/v1/transactions?cursor=${encodeURIComponent(syncCursor)}`,
      )
      expect(response.status).toBe(400)
      expect(response.body.error.code).toBe('invalid_cursor')
    })
  })

  it('organization isolation: a key sees only its organization', async () => {
    const other = harness.keyFor('other organization')
    const theirs = await listAll(harness, 'limit=500', other)
    expect(theirs).toEqual([])
    const filtered = await listAll(harness, `accountId=${accountId}`, other)
    expect(filtered).toEqual([])
  })

  it('auth: the transactions:read scope is required (403 without it)', async () => {
    harness.sandbox.ctx.state.apiKeys.set('sk_test_accounts_only', {
      key: 'sk_test_accounts_only',
      orgId: 'org_main',
      environment: 'test',
      scopes: ['accounts:read'],
      expiresAt: null,
      label: 'accounts only',
    })
    for (const path of ['/v1/transactions', '/v1/transactions/sync', `/v1/transactions/${created[0].id}`]) {
      const response = await harness.request('GET', path, { key: 'sk_test_accounts_only' })
      expect(response.status, path).toBe(403)
      expect(response.body.error.code).toBe('insufficient_scope')
    }
    const readOnly = await harness.request('GET', '/v1/transactions', { key: harness.keyFor('read only') })
    expect(readOnly.status).toBe(200)
  })
})

describe('GET /v1/transactions/{id}', () => {
  it('answers the transaction as the list shows it', async () => {
    const listed = (await listAll(harness, `accountId=${accountId}&limit=500`)).find(
      (t) => t.id === created[1].id,
    )
    const response = await harness.request('GET', `/v1/transactions/${created[1].id}`)
    expect(response.status).toBe(200)
    expect(response.body).toEqual(listed)
    expect(response.body).toEqual(created[1])
  })

  it('fields: applies the sparse fieldset, identifiers kept', async () => {
    const response = await harness.request('GET', `/v1/transactions/${created[1].id}?fields=rail`)
    expect(response.body).toEqual({
      id: created[1].id,
      connectionId,
      accountId,
      rail: 'wire',
    })
  })

  it('404 not_found for an unknown id and for another organization', async () => {
    const unknown = await harness.request('GET', '/v1/transactions/00000000-0000-4000-8000-000000000000')
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe('not_found')
    const other = await harness.request('GET', `/v1/transactions/${created[1].id}`, {
      key: harness.keyFor('other organization'),
    })
    expect(other.status).toBe(404)
  })
})

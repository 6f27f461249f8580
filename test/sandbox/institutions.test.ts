import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Institution, listResponse } from '../../src/api-client/index.js'
import { startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

let harness: SandboxHarness

beforeAll(async () => {
  harness = await startSandbox()
})
afterAll(() => harness.close())

const list = (query = '', key?: string) => harness.request('GET', `/v1/institutions${query}`, { key })
const ids = async (query: string) => (await list(query)).body.data.map((i: any) => i.institutionId)

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status).toBe(status)
  expect(response.body.error).toMatchObject({ code, message: expect.any(String) })
}

describe('GET /v1/institutions', () => {
  it('lists the catalog of at least 20 banks, live and pending, in the list envelope', async () => {
    const response = await list('?limit=500')
    expect(response.status).toBe(200)
    const page = listResponse(Institution.strict()).parse(response.body)
    expect(page.data.length).toBeGreaterThanOrEqual(20)
    expect(new Set(page.data.map((i) => i.status))).toEqual(new Set(['live', 'pending']))
    expect(page.data.filter((i) => i.additionalPortalUrls.length > 0).length).toBeGreaterThan(1)
    expect(page.pagination).toEqual({ hasMore: false, nextCursor: null })
  })

  it('searches by name, case-insensitively', async () => {
    expect(await ids('?query=HARBOR')).toEqual(['ins_harbor_national'])
  })

  it('searches by alternative name', async () => {
    expect(await ids('?query=Iron%20Bridge')).toEqual(['ins_ironbridge'])
  })

  it('searches by identifier', async () => {
    expect(await ids('?query=ins_coastal_first')).toEqual(['ins_coastal_first'])
  })

  it('searches by portal URL, canonical or additional, in any spelling', async () => {
    expect(await ids(`?query=${encodeURIComponent('https://TREASURY.harbornational.example/')}`)).toEqual([
      'ins_harbor_national',
    ])
    expect(
      await ids(`?query=${encodeURIComponent('https://business.harbornational.example/login?x=1')}`),
    ).toEqual(['ins_harbor_national'])
  })

  it('searches by portal domain', async () => {
    expect(await ids('?query=redwoodbank.example')).toEqual(['ins_redwood_merchants'])
  })

  it('finds nothing for an unknown bank', async () => {
    const response = await list('?query=no-such-bank-anywhere')
    expect(response.body.data).toEqual([])
  })

  it('pages with cursor and limit; the pages join up to the whole catalog without overlap', async () => {
    const all = await ids('?limit=500')
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: { body: any } = await list(
        `?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      expect(page.body.data.length).toBeLessThanOrEqual(7)
      seen.push(...page.body.data.map((i: any) => i.institutionId))
      cursor = page.body.pagination.nextCursor
      expect(page.body.pagination.hasMore).toBe(cursor !== null)
    } while (cursor)
    expect(seen).toEqual(all)
  })

  it('binds a cursor to its query', async () => {
    const first = await list('?limit=1&query=bank')
    const cursor = encodeURIComponent(first.body.pagination.nextCursor)
    expectError(await list(`?limit=1&query=trust&cursor=${cursor}`), 400, 'invalid_cursor')
    expectError(await list('?cursor=not-a-cursor'), 400, 'invalid_cursor')
  })

  it('accepts limit 1 to 500', async () => {
    expectError(await list('?limit=0'), 400, 'validation_error')
    expectError(await list('?limit=501'), 400, 'validation_error')
    expectError(await list('?limit=abc'), 400, 'validation_error')
    expect((await list('?limit=1')).body.data).toHaveLength(1)
  })

  it('needs connections:read, which the read-only key has, and an API key', async () => {
    expect((await list('', harness.keyFor('read only'))).status).toBe(200)
    expectError(await list('', null as unknown as string), 401, 'authentication_required')
  })
})

describe('GET /v1/institutions/{id}', () => {
  it('returns one institution', async () => {
    const response = await harness.request('GET', '/v1/institutions/ins_harbor_national')
    expect(response.status).toBe(200)
    expect(Institution.strict().parse(response.body)).toMatchObject({
      institutionId: 'ins_harbor_national',
      status: 'live',
      canonicalPortalUrl: 'https://business.harbornational.example',
    })
  })

  it('answers 404 for an unknown id', async () => {
    expectError(await harness.request('GET', '/v1/institutions/ins_nope'), 404, 'not_found')
  })
})

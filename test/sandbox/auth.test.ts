import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Scope } from '../../src/sandbox/index.js'
import { startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

let harness: SandboxHarness

/** Adds a key with exactly these scopes to the main organization. */
function keyWithScopes(key: string, scopes: Scope[]): string {
  harness.sandbox.ctx.state.apiKeys.set(key, {
    key,
    orgId: 'org_main',
    environment: 'test',
    scopes,
    expiresAt: null,
    label: key,
  })
  return key
}

beforeAll(async () => {
  harness = await startSandbox()
})
afterAll(() => harness.close())

function expectError(
  response: { status: number; body: any; headers: Headers },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status)
  expect(response.body.error).toMatchObject({ code, requestId: response.headers.get('request-id') })
  expect(response.body.error.message).toEqual(expect.any(String))
}

describe('authentication', () => {
  it('answers 401 authentication_required when the Authorization header is missing', async () => {
    for (const path of ['/v1/webhooks', '/v1/institutions', '/v1/connections']) {
      expectError(await harness.request('GET', path, { key: null }), 401, 'authentication_required')
    }
  })

  it('answers 401 invalid_api_key for an unknown key, without echoing it', async () => {
    const response = await harness.request('GET', '/v1/webhooks', { key: 'sk_test_not_a_real_key' })
    expectError(response, 401, 'invalid_api_key')
    expect(JSON.stringify(response.body)).not.toContain('sk_test_not_a_real_key')
  })

  it('answers 401 invalid_api_key for a scheme other than Bearer', async () => {
    const response = await harness.request('GET', '/v1/webhooks', {
      key: null,
      headers: { authorization: `Basic ${harness.apiKey}` },
    })
    expectError(response, 401, 'invalid_api_key')
  })

  it('answers 401 api_key_expired for an expired key', async () => {
    expectError(
      await harness.request('GET', '/v1/webhooks', { key: harness.keyFor('expired') }),
      401,
      'api_key_expired',
    )
  })

  it('checks the key before the route, so an unknown /v1 path without a key is 401', async () => {
    expectError(
      await harness.request('GET', '/v1/nothing-here', { key: null }),
      401,
      'authentication_required',
    )
    expectError(await harness.request('GET', '/v1/nothing-here'), 404, 'not_found')
  })
})

describe('scopes', () => {
  it('lets a read-only key read webhooks but not create, change, delete or test them (403 insufficient_scope)', async () => {
    const readOnly = harness.keyFor('read only')
    const created = await harness.request('POST', '/v1/webhooks', {
      body: { url: 'https://hooks.example.com/a', events: ['test'] },
    })
    expect((await harness.request('GET', '/v1/webhooks', { key: readOnly })).status).toBe(200)
    expect((await harness.request('GET', `/v1/webhooks/${created.body.id}`, { key: readOnly })).status).toBe(
      200,
    )
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/v1/webhooks', { url: 'https://hooks.example.com/b', events: ['test'] }],
      ['PATCH', `/v1/webhooks/${created.body.id}`, { active: false }],
      ['DELETE', `/v1/webhooks/${created.body.id}`, undefined],
      ['POST', `/v1/webhooks/${created.body.id}/test`, undefined],
    ]
    for (const [method, path, body] of writes) {
      const response = await harness.request(method, path, { key: readOnly, body })
      expectError(response, 403, 'insufficient_scope')
      expect(response.body.error.message).toContain('webhooks:write')
    }
    expect((await harness.request('GET', `/v1/webhooks/${created.body.id}`)).body.active).toBe(true)
  })

  it('refuses reading webhooks without webhooks:read', async () => {
    const key = keyWithScopes('sk_test_connections_only', ['connections:read', 'connections:write'])
    const response = await harness.request('GET', '/v1/webhooks', { key })
    expectError(response, 403, 'insufficient_scope')
    expect(response.body.error.message).toContain('webhooks:read')
  })

  it('refuses listing institutions without connections:read', async () => {
    const key = keyWithScopes('sk_test_webhooks_only', ['webhooks:read', 'webhooks:write'])
    expectError(await harness.request('GET', '/v1/institutions', { key }), 403, 'insufficient_scope')
    expect((await harness.request('GET', '/v1/webhooks', { key })).status).toBe(200)
  })
})

describe('organization isolation', () => {
  it("hides one organization's webhook registrations from another's key", async () => {
    const other = harness.keyFor('other organization')
    const mine = await harness.request('POST', '/v1/webhooks', {
      body: { url: 'https://hooks.example.com/mine', events: ['test'] },
    })
    const theirs = await harness.request('POST', '/v1/webhooks', {
      key: other,
      body: { url: 'https://hooks.example.com/theirs', events: ['test'] },
    })

    const theirList = await harness.request('GET', '/v1/webhooks', { key: other })
    expect(theirList.body.data.map((w: any) => w.id)).toEqual([theirs.body.id])
    const myList = await harness.request('GET', '/v1/webhooks')
    expect(myList.body.data.map((w: any) => w.id)).not.toContain(theirs.body.id)

    const id = mine.body.id
    expectError(await harness.request('GET', `/v1/webhooks/${id}`, { key: other }), 404, 'not_found')
    expectError(
      await harness.request('PATCH', `/v1/webhooks/${id}`, { key: other, body: { active: false } }),
      404,
      'not_found',
    )
    expectError(await harness.request('POST', `/v1/webhooks/${id}/test`, { key: other }), 404, 'not_found')
    expectError(await harness.request('DELETE', `/v1/webhooks/${id}`, { key: other }), 404, 'not_found')
    expect((await harness.request('GET', `/v1/webhooks/${id}`)).body.active).toBe(true)
  })

  it('shows the institution catalog, which is public, to every organization', async () => {
    const mine = await harness.request('GET', '/v1/institutions?limit=500')
    const theirs = await harness.request('GET', '/v1/institutions?limit=500', {
      key: harness.keyFor('other organization'),
    })
    expect(mine.status).toBe(200)
    expect(theirs.body.data).toEqual(mine.body.data)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSidecarApp } from '../../src/sidecar/http-app.js'
import type { SidecarRole } from '../../src/sidecar/index.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { listRoutes, samplePath, type AppRoute } from '../support/express-routes.js'

/**
 * Routes open without the token, each for a reason (docs/security.md). Anything else the app answers, now or
 * added later, must refuse a request without KIT_API_TOKEN.
 */
const PUBLIC: Record<string, string> = {
  'GET /healthz': 'liveness probe, says only "ok"',
  'GET /readyz': 'readiness probe for orchestrators',
  'GET /metrics': 'Prometheus scraping: counts and durations, no ids or amounts',
  'POST /webhooks': 'authenticated by the Service-Signature HMAC instead',
  'POST /dashboard/logout': 'ends the caller’s own session; nothing to protect',
  'DELETE /admin/session': 'ends the caller’s own session; nothing to protect',
  'GET /api/openapi.json': 'the API’s OpenAPI document: describes the code, holds no data',
}

const ROLES: SidecarRole[] = ['receiver', 'api']
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let routes: AppRoute[]

beforeAll(async () => {
  // Hundreds of wrong tokens from one client: this test is about every route refusing them, not the throttle.
  sidecar = await startTestSidecar('routes_token', ROLES, { AUTH_FAILURE_BURST: '1000000' })
  // A second app on the same context, for its router: the running server is built by the same function.
  const app = createSidecarApp(sidecar.context, { roles: new Set(ROLES) })
  routes = listRoutes(app as unknown as Parameters<typeof listRoutes>[0])
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

const wrongSameLength = API_TOKEN.slice(0, -1) + (API_TOKEN.endsWith('x') ? 'y' : 'x')
const CREDENTIALS: Array<[string, Record<string, string>]> = [
  ['no credentials', {}],
  ['a wrong token of the same length', { authorization: `Bearer ${wrongSameLength}` }],
  ['a prefix of the token', { authorization: `Bearer ${API_TOKEN.slice(0, 8)}` }],
  ['the token with a suffix', { authorization: `Bearer ${API_TOKEN}0` }],
  ['the token in another scheme', { authorization: `Basic ${API_TOKEN}` }],
  ['an empty bearer', { authorization: 'Bearer ' }],
  [
    'a forged session cookie',
    { cookie: `bankrec_session=${wrongSameLength}; bankrec_admin=${wrongSameLength}` },
  ],
  ['the token as a session cookie', { cookie: `bankrec_session=${API_TOKEN}` }],
]

async function send(route: AppRoute, headers: Record<string, string>) {
  const method = route.method === 'ANY' ? 'GET' : route.method
  const response = await fetch(`${sidecar.url}${samplePath(route.path)}`, {
    method,
    headers: {
      ...headers,
      ...(method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' }),
    },
    body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
    redirect: 'manual',
  })
  await response.arrayBuffer()
  return response.status
}

describe('every route the app answers', () => {
  it('is found by walking the router, including the API, dashboard and queue board', () => {
    const keys = new Set(routes.map((r) => `${r.method} ${r.path}`))
    for (const expected of [
      'GET /api/connections',
      'PUT /api/connections/:id/credentials',
      'POST /api/invoices/import',
      'GET /dashboard',
      'POST /admin/session',
      'GET /admin/queues',
      'PUT /admin/queues/api/queues/:queueName/obliterate',
      'ANY /admin/queues/static/*file',
    ]) {
      expect(keys).toContain(expected)
    }
    expect(routes.filter((r) => r.path.startsWith('/api/')).length).toBeGreaterThanOrEqual(25)
  })

  it('refuses requests without the token, with a wrong one, or with one of another length (401)', async () => {
    const guarded = routes.filter((r) => !PUBLIC[`${r.method} ${r.path}`])
    const open: string[] = []
    for (const route of guarded) {
      for (const [what, headers] of CREDENTIALS) {
        const status = await send(route, headers)
        if (status !== 401) open.push(`${route.method} ${route.path} with ${what}: ${status}`)
      }
    }
    expect(open).toEqual([])
  })

  it('lets the token through on the read routes it guards', async () => {
    const reads = routes.filter(
      (r) => r.method === 'GET' && !PUBLIC[`GET ${r.path}`] && !r.path.includes(':') && !r.path.includes('*'),
    )
    expect(reads.length).toBeGreaterThan(10)
    for (const route of reads) {
      const status = await send(route, { authorization: `Bearer ${API_TOKEN}` })
      expect(status, `${route.path}`).not.toBe(401)
    }
  })

  it('keeps the open list to routes that exist', () => {
    const keys = new Set(routes.map((r) => `${r.method} ${r.path}`))
    expect(Object.keys(PUBLIC).filter((key) => key !== 'POST /webhooks' && !keys.has(key))).toEqual([])
  })
})

import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSidecarApp } from '../../src/sidecar/http-app.js'
import type { SidecarRole } from '../../src/sidecar/index.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { listRoutes, samplePath, type AppRoute } from '../support/express-routes.js'

const ROLES: SidecarRole[] = ['receiver', 'api']
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let routes: AppRoute[]

beforeAll(async () => {
  // The test talks to the sidecar over loopback: that is the "proxy" it trusts.
  sidecar = await startTestSidecar('headers', ROLES, { TRUST_PROXY: 'loopback' })
  const app = createSidecarApp(sidecar.context, { roles: new Set(ROLES) })
  routes = listRoutes(app as unknown as Parameters<typeof listRoutes>[0])
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

/** GETs with the token (the answers that hold data), everything else without (refusals need the headers too). */
async function headersOf(route: AppRoute): Promise<Headers> {
  const method = route.method === 'ANY' ? 'GET' : route.method
  const read = method === 'GET'
  const response = await fetch(`${sidecar.url}${samplePath(route.path)}`, {
    method,
    headers: read ? { authorization: `Bearer ${API_TOKEN}` } : { 'content-type': 'application/json' },
    body: read || method === 'DELETE' ? undefined : '{}',
    redirect: 'manual',
  })
  await response.arrayBuffer()
  return response.headers
}

describe('every answer of the sidecar', () => {
  it('says nosniff and no-store and names no framework, on every route the router has and on a 404', async () => {
    expect(routes.length).toBeGreaterThan(30)
    const problems: string[] = []
    for (const route of [...routes, { method: 'GET', path: '/no/such/page' }]) {
      const headers = await headersOf(route)
      const name = `${route.method} ${route.path}`
      if (headers.get('x-content-type-options') !== 'nosniff') problems.push(`${name}: no nosniff`)
      if (headers.has('x-powered-by')) problems.push(`${name}: X-Powered-By ${headers.get('x-powered-by')}`)
      // The queue board's own scripts and styles may be cached; nothing else may.
      const isStatic = route.path.startsWith('/admin/queues/static')
      if (!isStatic && !/no-store/.test(headers.get('cache-control') ?? ''))
        problems.push(`${name}: Cache-Control ${headers.get('cache-control')}`)
    }
    expect(problems).toEqual([])
  }, 60_000)

  it('gives the session cookie Secure behind a trusted TLS proxy, and only then', async () => {
    const behindProxy = await request(sidecar.url)
      .post('/admin/session')
      .set('authorization', `Bearer ${API_TOKEN}`)
      .set('x-forwarded-proto', 'https')
    expect(behindProxy.status).toBe(204)
    expect(behindProxy.headers['set-cookie']![0]).toMatch(/; Secure/)

    // Without TRUST_PROXY anyone could claim https: the header is ignored.
    const config = { ...sidecar.context.config, TRUST_PROXY: undefined }
    const direct = createSidecarApp({ ...sidecar.context, config }, { roles: new Set(ROLES) })
    const spoofed = await request(direct)
      .post('/admin/session')
      .set('authorization', `Bearer ${API_TOKEN}`)
      .set('x-forwarded-proto', 'https')
    expect(spoofed.status).toBe(204)
    expect(spoofed.headers['set-cookie']![0]).not.toMatch(/Secure/)
  })
})

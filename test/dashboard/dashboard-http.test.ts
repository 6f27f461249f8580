import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { enqueueMatches, upsertTransactions } from '../../src/store/index.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'

const bearer = { authorization: `Bearer ${API_TOKEN}` }
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let connectionId: string

/** Signs in through the form; the session cookie as a Cookie header. */
async function signIn(): Promise<string> {
  const answer = await fetch(`${sidecar.url}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sidecar.url },
    body: new URLSearchParams({ token: API_TOKEN, next: '/dashboard/invoices' }).toString(),
  })
  expect(answer.status).toBe(303)
  expect(answer.headers.get('location')).toBe('/dashboard/invoices')
  return answer.headers.get('set-cookie')!.split(';')[0]!
}

beforeAll(async () => {
  sidecar = await startTestSidecar('dash_http', ['receiver', 'worker', 'api'])
  const created = await onboardSandboxConnection(sidecar.context.bank)
  connectionId = created.id
  await vi.waitFor(
    async () => {
      const stream = await sidecar.context.store.db
        .selectFrom('sync_streams')
        .select('last_success_at')
        .where('connection_id', '=', connectionId)
        .executeTakeFirst()
      expect(stream?.last_success_at).toBeTruthy()
    },
    { timeout: 20_000, interval: 100 },
  )
}, 30_000)

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('dashboard sign-in', () => {
  it('answers a browser without a session with the sign-in form only, under a CSP that allows nothing external', async () => {
    for (const path of ['/', '/dashboard', '/dashboard/exceptions', '/dashboard/invoices']) {
      const answer = await fetch(`${sidecar.url}${path}`)
      expect(answer.status).toBe(401)
      const html = await answer.text()
      expect(html).toContain('id="signin-form"')
      expect(html).not.toContain(connectionId)
      expect(html).not.toContain(API_TOKEN)
      const csp = answer.headers.get('content-security-policy')!
      expect(csp).toContain("default-src 'none'")
      const nonce = /'nonce-([^']+)'/.exec(csp)![1]
      expect(html).toContain(`<script nonce="${nonce}">`)
      expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="(https?:)?\/\//)
    }
  })

  it('refuses a wrong token and opens a session cookie that is not the token', async () => {
    const refused = await fetch(`${sidecar.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=not-the-token-at-all',
    })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('set-cookie')).toBeNull()
    expect(await refused.text()).toContain('That token was refused')

    const cookie = await signIn()
    expect(cookie).toMatch(/^bankrec_session=/)
    expect(cookie).not.toContain(API_TOKEN)
    const page = await fetch(`${sidecar.url}/dashboard`, { headers: { cookie } })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(`data-connection-id="${connectionId}"`)
    // The cookie opens the pages, never the API.
    const asBearer = await fetch(`${sidecar.url}/api/connections`, {
      headers: { authorization: `Bearer ${decodeURIComponent(cookie.split('=')[1]!)}` },
    })
    expect(asBearer.status).toBe(401)
  })

  it('sends a sign-in only back to a dashboard page, never to another site', async () => {
    const answer = await fetch(`${sidecar.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: API_TOKEN, next: '//evil.example/dashboard' }).toString(),
    })
    expect(answer.status).toBe(303)
    expect(answer.headers.get('location')).toBe('/dashboard')
  })

  it('refuses form posts from another origin', async () => {
    const cookie = await signIn()
    const answer = await fetch(`${sidecar.url}/dashboard/connections/${connectionId}/sync`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    })
    expect(answer.status).toBe(403)
    // A sandboxed iframe or a privacy redirect sends Origin: null; it is not this origin.
    const opaque = await fetch(`${sidecar.url}/dashboard/connections/${connectionId}/sync`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: 'null', 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    })
    expect(opaque.status).toBe(403)
    const same = await fetch(`${sidecar.url}/dashboard/connections/${connectionId}/sync`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: sidecar.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'back=/dashboard',
    })
    expect(same.status).toBe(303)
    const flashed = await fetch(`${sidecar.url}/dashboard`, {
      headers: { cookie: `${cookie}; ${same.headers.get('set-cookie')!.split(';')[0]}` },
    })
    expect(await flashed.text()).toContain('Sync queued.')
  })
})

describe('sessions of named users', () => {
  async function addUser(name: string, role: string): Promise<string> {
    const answer = await fetch(`${sidecar.url}/api/users`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ name, role }),
    })
    expect(answer.status).toBe(201)
    return ((await answer.json()) as { token: string }).token
  }

  async function signInAs(token: string): Promise<string> {
    const answer = await fetch(`${sidecar.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sidecar.url },
      body: new URLSearchParams({ token }).toString(),
    })
    expect(answer.status).toBe(303)
    return answer.headers.get('set-cookie')!.split(';')[0]!
  }

  it('carries the user who signed in, shown on every page, and ends when the user is removed', async () => {
    const token = await addUser('sam', 'clerk')
    const cookie = await signInAs(token)
    expect(cookie).not.toContain(token)
    const page = await fetch(`${sidecar.url}/dashboard/exceptions`, { headers: { cookie } })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<span class="whoami">sam · clerk</span>')

    await fetch(`${sidecar.url}/api/users/sam`, { method: 'DELETE', headers: bearer })
    const after = await fetch(`${sidecar.url}/dashboard/exceptions`, { headers: { cookie } })
    expect(after.status).toBe(401)
    expect(await after.text()).toContain('id="signin-form"')
    expect(after.headers.get('set-cookie')).toMatch(/^bankrec_session=;/)
  })

  it('lists the audit log on the Activity page with each actor and role, filtered by actor', async () => {
    const cookie = await signInAs(await addUser('ada', 'admin'))
    const added = await fetch(`${sidecar.url}/api/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'eve', role: 'viewer' }),
    })
    expect(added.status).toBe(201)
    const page = await fetch(`${sidecar.url}/dashboard/activity?actor=admin`, { headers: { cookie } })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toMatch(
      /<tr data-seq="\d+" data-actor="admin">[\s\S]*?admin<\/a\s*> <small>admin<\/small>[\s\S]*?user\.added[\s\S]*?eve/,
    )
    expect(html).not.toContain('data-actor="engine"')
    const nobody = await fetch(`${sidecar.url}/dashboard/activity?actor=nobody-here`, { headers: { cookie } })
    expect(nobody.status).toBe(200)
    expect(await nobody.text()).toContain('Nothing recorded')
    // U+0000 in a query is refused before any page reads it (security finding 11).
    const nul = await fetch(`${sidecar.url}/dashboard/activity?actor=%00x`, { headers: { cookie } })
    expect(nul.status).toBe(400)
  })

  it('refuses an action below the role it needs, saying which role, and changes nothing', async () => {
    const cookie = await signInAs(await addUser('vic', 'viewer'))
    const requests = () =>
      sidecar.context.store.db
        .selectFrom('sync_requests')
        .selectAll()
        .execute()
        .then((rows) => rows.length)
    const before = await requests()
    const answer = await fetch(`${sidecar.url}/dashboard/connections/${connectionId}/sync`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: sidecar.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'back=/dashboard',
    })
    expect(answer.status).toBe(303)
    const flashed = await fetch(`${sidecar.url}/dashboard`, {
      headers: { cookie: `${cookie}; ${answer.headers.get('set-cookie')!.split(';')[0]}` },
    })
    const html = await flashed.text()
    expect(html).toContain('This needs the clerk role; vic is a viewer.')
    expect(html).not.toContain('Sync now')
    expect(await requests()).toBe(before)
  })
})

describe('the dashboard pages', () => {
  it('escapes bank and invoice data, so a name can never become markup', async () => {
    const put = await fetch(`${sidecar.url}/api/invoices/inv-xss`, {
      method: 'PUT',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({
        number: 'X-1',
        amount: '10.00',
        currency: 'USD',
        customerName: '<script>alert(1)</script>',
      }),
    })
    expect(put.status).toBeLessThan(300)
    const page = await fetch(`${sidecar.url}/dashboard/invoices`, { headers: bearer })
    const html = await page.text()
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).not.toContain('<script>alert(1)')
  })

  it('answers an unknown invoice with 404', async () => {
    expect((await fetch(`${sidecar.url}/dashboard/invoices/nope`, { headers: bearer })).status).toBe(404)
  })

  it('answers text the store cannot hold (%00) in a page path or query with 400, naming where', async () => {
    for (const [path, where] of [
      ['/dashboard/invoices/a%00b', 'path'],
      ['/dashboard/exceptions?after=a%00b', 'query.after'],
      ['/dashboard/invoices?cursor=%00', 'query.cursor'],
    ]) {
      const answer = await fetch(`${sidecar.url}${path}`, { headers: bearer })
      expect(answer.status, path).toBe(400)
      expect(((await answer.json()) as { error: { details: unknown } }).error.details).toEqual([
        { path: where, message: 'must not contain U+0000 or an unpaired surrogate' },
      ])
    }
  })

  it('imports a pasted camt.054 from the remittance form, same-origin only, and shows what it settled', async () => {
    for (const [id, number, amount, paymentReference] of [
      ['inv-rf-1', 'INV-7001', '500.00', undefined],
      ['inv-rf-2', 'INV-7002', '300.00', undefined],
      ['inv-rf-3', 'INV-7003', '1200.00', 'RF56 5390 0754 70'],
    ] as const) {
      const put = await fetch(`${sidecar.url}/api/invoices/${id}`, {
        method: 'PUT',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ number, amount, currency: 'EUR', paymentReference }),
      })
      expect(put.status).toBe(201)
    }
    const { db } = sidecar.context.store
    await upsertTransactions(db, [
      mirrorRow(901, { amount: '1992.50', currency: 'EUR', payment_reference: null, description: 'SAMMLER' }),
    ])
    await enqueueMatches(db, 'transaction', [txId(901)])
    await sidecar.context.matching.runNow()
    const cookie = await signIn()
    const post = (body: Record<string, string>, origin = sidecar.url) =>
      fetch(`${sidecar.url}/dashboard/transactions/${txId(901)}/remittance`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ back: '/dashboard/exceptions', ...body }).toString(),
      })
    const xml = readFileSync(new URL('../../fixtures/camt054/sepa-batch.xml', import.meta.url), 'utf8')
    expect((await post({ advice: xml }, 'http://evil.example')).status).toBe(403)
    const bomb = await post({
      advice:
        '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document>&x;</Document>',
    })
    expect(bomb.status).toBe(400)
    expect(await bomb.text()).toContain('must not contain a DOCTYPE or ENTITY declaration')
    const done = await post({ advice: xml })
    expect(done.status).toBe(200)
    const html = await done.text()
    expect(html).toContain('data-outcome="settled"')
    expect(html).toMatch(/data-invoice-id="inv-rf-3"[\s\S]*?INV-7003[\s\S]*?1,192\.5[\s\S]*?7\.5/)
    const invoice = await fetch(`${sidecar.url}/api/invoices/inv-rf-3`, { headers: bearer })
    expect(((await invoice.json()) as { status: string }).status).toBe('paid')
  })

  it('refuses a manual match naming a payment id that is no UUID, without an error in the log', async () => {
    const cookie = await signIn()
    const answer = await fetch(`${sidecar.url}/dashboard/allocations`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: sidecar.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ transactionId: 'not-a-uuid', invoiceId: 'inv-1', back: '/dashboard' }),
    })
    expect(answer.status).toBe(303)
    const flashed = await fetch(`${sidecar.url}/dashboard`, {
      headers: { cookie: `${cookie}; ${answer.headers.get('set-cookie')!.split(';')[0]}` },
    })
    expect(await flashed.text()).toMatch(/transactionId Invalid UUID/)
  })
})

describe('GET /api/alerts', () => {
  it('lists the notices newest first, pages them with a cursor, and needs the token', async () => {
    expect((await fetch(`${sidecar.url}/api/alerts`)).status).toBe(401)
    const sandbox = sidecar.context.bank.sandbox!
    await fetch(`${sandbox.url}/_sandbox/connections/${connectionId}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
      body: JSON.stringify({ status: 'reauthRequired' }),
    })
    await sandbox.advance(5)
    await sandbox.flushWebhooks()
    await fetch(`${sandbox.url}/_sandbox/connections/${connectionId}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
      body: JSON.stringify({ status: 'active' }),
    })
    await sandbox.advance(5)
    await sandbox.flushWebhooks()

    type Page = { data: { id: string; type: string; severity: string; title: string }[]; pagination: any }
    let all: Page | undefined
    await vi.waitFor(
      async () => {
        all = (await (await fetch(`${sidecar.url}/api/alerts`, { headers: bearer })).json()) as Page
        expect(all.data.map((notice) => notice.type)).toEqual(['recovery', 'alert'])
      },
      { timeout: 20_000, interval: 200 },
    )
    expect(all!.data[1]).toMatchObject({ severity: 'critical', title: expect.stringMatching(/re-auth/i) })
    expect(all!.pagination).toEqual({ hasMore: false, nextCursor: null })

    const first = (await (
      await fetch(`${sidecar.url}/api/alerts?limit=1`, { headers: bearer })
    ).json()) as Page
    expect(first.data.map((notice) => notice.id)).toEqual([all!.data[0]!.id])
    expect(first.pagination.hasMore).toBe(true)
    const second = (await (
      await fetch(`${sidecar.url}/api/alerts?limit=1&cursor=${first.pagination.nextCursor}`, {
        headers: bearer,
      })
    ).json()) as Page
    expect(second.data.map((notice) => notice.id)).toEqual([all!.data[1]!.id])
    expect(second.pagination).toEqual({ hasMore: false, nextCursor: null })

    const wrongFilter = await fetch(
      `${sidecar.url}/api/alerts?limit=1&severity=info&cursor=${first.pagination.nextCursor}`,
      { headers: bearer },
    )
    expect(wrongFilter.status).toBe(400)
    expect(((await wrongFilter.json()) as any).error.code).toBe('invalid_cursor')
  })
})

describe('GET /api/overview', () => {
  it('gives queue depth, sync lag, deliveries and recent events', async () => {
    expect((await fetch(`${sidecar.url}/api/overview`)).status).toBe(401)
    const answer = await fetch(`${sidecar.url}/api/overview`, { headers: bearer })
    const { data } = (await answer.json()) as {
      data: {
        mode: string
        queues: { name: string }[]
        syncLag: unknown[]
        deliveries: unknown[]
        recentEvents: unknown[]
      }
    }
    expect(data.mode).toBe('sandbox')
    expect(data.queues.map((q) => q.name)).toEqual(
      expect.arrayContaining(['webhook-events', 'connection-sync']),
    )
    expect(data.syncLag).toContainEqual(expect.objectContaining({ connectionId }))
    expect(data.deliveries).toContainEqual({ outcome: 'queued', reason: 'ok', count: expect.any(Number) })
    expect(data.recentEvents).toContainEqual(
      expect.objectContaining({ type: 'connection.status_changed', outcome: 'processed' }),
    )
  })
})

describe('the queue board', () => {
  it('opens only with the token, as a Bearer header or the session cookie', async () => {
    expect((await fetch(`${sidecar.url}/admin/queues`)).status).toBe(401)
    expect(
      (await fetch(`${sidecar.url}/admin/queues`, { headers: { cookie: 'bankrec_session=nope' } })).status,
    ).toBe(401)
    const withBearer = await fetch(`${sidecar.url}/admin/queues`, { headers: bearer })
    expect(withBearer.status).toBe(200)
    expect(await withBearer.text()).toContain('<base href="/admin/queues/"')

    expect((await fetch(`${sidecar.url}/admin/session`, { method: 'POST' })).status).toBe(401)
    const session = await fetch(`${sidecar.url}/admin/session`, { method: 'POST', headers: bearer })
    expect(session.status).toBe(204)
    const cookie = session.headers.get('set-cookie')!
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    const queues = await fetch(`${sidecar.url}/admin/queues/api/queues`, {
      headers: { cookie: cookie.split(';')[0]! },
    })
    expect(queues.status).toBe(200)
    const names = ((await queues.json()) as { queues: { name: string }[] }).queues.map((q) => q.name)
    expect(names).toEqual(expect.arrayContaining(['webhook-events', 'connection-sync']))
  })

  it("serves bull-board's page without Google Fonts or any other outside stylesheet", async () => {
    const answer = await fetch(`${sidecar.url}/admin/queues`, { headers: bearer })
    const html = await answer.text()
    expect(html).toContain('static/css/')
    expect(html).not.toContain('fonts.googleapis.com')
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="(https?:)?\/\//)
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'")
  })
})

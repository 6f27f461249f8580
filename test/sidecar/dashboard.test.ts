import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { API_TOKEN, startTestSidecar } from './sidecar-fixture.js'

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path))
const bearer = { authorization: `Bearer ${API_TOKEN}` }
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let connectionId: string

beforeAll(async () => {
  sidecar = await startTestSidecar('dashboard', ['receiver', 'worker', 'api'])
  const { client, sandbox } = sidecar.context.bank
  const created = await client.connections.create({
    entityId: randomUUID(),
    institutionId: 'ins_harbor_national',
  })
  await client.connections.submitCredentials(created.id, {
    bankUsername: 'delegate',
    password: 'correct horse',
  })
  await client.connections.completeSetup(created.id)
  await sandbox!.advance(60)
  await sandbox!.flushWebhooks()
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

describe('the dashboard', () => {
  it('serves a self-contained page that holds no data and runs only its own script', async () => {
    const answer = await fetch(`${sidecar.url}/`)
    expect(answer.status).toBe(200)
    const csp = answer.headers.get('content-security-policy')!
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]
    const html = await answer.text()
    expect(html).toContain(`<script nonce="${nonce}">`)
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/)
    expect(html).not.toContain(connectionId)
    expect(html).not.toContain(API_TOKEN)
    expect((await fetch(`${sidecar.url}/dashboard`)).status).toBe(200)
  })

  it('gives the page queue depth, sync lag, deliveries and recent events at /api/overview', async () => {
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
    expect(data.syncLag).toContainEqual(expect.objectContaining({ connectionId, lastError: null }))
    expect(data.deliveries).toContainEqual({ outcome: 'queued', reason: 'ok', count: expect.any(Number) })
    expect(data.recentEvents).toContainEqual(
      expect.objectContaining({ type: 'connection.status_changed', outcome: 'processed' }),
    )
  })

  it('shows the queue board only with the token, as a Bearer header or the session cookie', async () => {
    expect((await fetch(`${sidecar.url}/admin/queues`)).status).toBe(401)
    expect(
      (await fetch(`${sidecar.url}/admin/queues`, { headers: { cookie: 'bankrec_admin=nope' } })).status,
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

  it.skipIf(!CHROMIUM)(
    'renders connections and queues in headless Chromium with the token from the link',
    async () => {
      const { stdout } = await promisify(execFile)(
        CHROMIUM!,
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--virtual-time-budget=5000',
          '--dump-dom',
          `${sidecar.url}/#token=${API_TOKEN}`,
        ],
        { timeout: 60_000 },
      )
      expect(stdout).toContain(connectionId)
      expect(stdout).toMatch(/<span class="badge green">active<\/span>/)
      expect(stdout).toContain('webhook-events')
      expect(stdout).toMatch(/Invoices are not available|<table/)
      expect(stdout).toMatch(/<p id="notice" class="notice" hidden=""><\/p>/)
    },
    70_000,
  )
})

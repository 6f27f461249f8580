import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { launchBrowser, skipBrowserTests, type Browser } from '../dashboard/browser.js'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'
import { API_TOKEN, startTestSidecar } from './sidecar-fixture.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let browser: Browser | undefined
let connectionId: string

async function api(path: string): Promise<any> {
  const response = await fetch(`${sidecar.url}/api${path}`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  })
  expect(response.status).toBe(200)
  return response.json()
}

/** The bank changes the connection's status (sandbox control API) and delivers the webhook that follows. */
async function bankSetsStatus(body: Record<string, string>): Promise<void> {
  const sandbox = sidecar.context.bank.sandbox!
  const response = await fetch(`${sandbox.url}/_sandbox/connections/${connectionId}/status`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(200)
  await sandbox.advance(5)
  await sandbox.flushWebhooks()
}

/** What the dashboard's connections table shows for the connection: its status and the incident cell. */
async function dashboardRow(): Promise<{ status: string | null; text: string }> {
  if (browser) {
    const page = await browser.context.newPage()
    try {
      await page.goto(`${sidecar.url}/#token=${API_TOKEN}`)
      // A signed-out browser is asked first and signs in on the link's button (issue 26: login CSRF).
      const selector = `tr[data-connection-id="${connectionId}"]`
      const first = await page.waitForSelector(`#signin-button:visible, ${selector}`)
      if ((await first.getAttribute('id')) === 'signin-button') await first.click()
      const row = await page.waitForSelector(selector)
      return { status: await row.getAttribute('data-status'), text: (await row.textContent()) ?? '' }
    } finally {
      await page.close()
    }
  }
  // BANKREC_SKIP_BROWSER_TESTS=1: the HTML the dashboard serves.
  const login = await fetch(`${sidecar.url}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sidecar.url },
    body: new URLSearchParams({ token: API_TOKEN, next: '/dashboard' }).toString(),
  })
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  const html = await (await fetch(`${sidecar.url}/dashboard`, { headers: { cookie } })).text()
  const row = new RegExp(
    `<tr data-connection-id="${connectionId}" data-status="([^"]*)">([\\s\\S]*?)</tr>`,
  ).exec(html)
  return { status: row?.[1] ?? null, text: row?.[2] ?? '' }
}

/** Every surface at once: the list, the connection, the dashboard, the mirrored row and health, the alerts. */
async function surfaces() {
  const list = (await api('/connections')).data.find((c: any) => c.id === connectionId)
  const one = await api(`/connections/${connectionId}`)
  const alerts = (await api('/alerts?limit=100')).data.filter(
    (a: any) => a.subject.connection?.id === connectionId,
  )
  return {
    list: [list.status, list.openIncident?.kind ?? null],
    one: [one.status, one.openIncident?.kind ?? null],
    dashboard: await dashboardRow(),
    alerts: alerts.map((a: any) => `${a.type}:${a.kind}`).sort(),
  }
}

beforeAll(async () => {
  sidecar = await startTestSidecar('status_truth', ['receiver', 'worker', 'api'])
  connectionId = (await onboardSandboxConnection(sidecar.context.bank)).id
  if (!skipBrowserTests) browser = await launchBrowser()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await sidecar?.close()
  await sidecar?.drop()
})

let lastHandled = '0'

/** Waits until the worker has handled the bank's next status_changed webhook (its history row is written last). */
async function webhookHandled(status: string): Promise<void> {
  lastHandled = await vi.waitFor(
    async () => {
      const row = await sidecar.context.store.db
        .selectFrom('connection_status_history')
        .select('id')
        .where('connection_id', '=', connectionId)
        .where('source', '=', 'webhook')
        .where('status', '=', status)
        .where('id', '>', lastHandled)
        .executeTakeFirst()
      expect(row).toBeDefined()
      return row!.id
    },
    { timeout: 30_000, interval: 100 },
  )
}

describe('one truth for a connection status', () => {
  it('shows reauthRequired and the open incident on every surface during the incident, and active with none after', async () => {
    await webhookHandled('active')

    await bankSetsStatus({
      status: 'reauthRequired',
      errorCode: 'credentials_expired',
      errorMessage: 'Expired',
    })
    await webhookHandled('reauthRequired')
    // No waiting from here on: the moment the event is handled, every surface agrees.
    let seen = await surfaces()
    expect(seen.list).toEqual(['reauthRequired', 'reauthRequired'])
    expect(seen.one).toEqual(['reauthRequired', 'reauthRequired'])
    expect(seen.dashboard.status).toBe('reauthRequired')
    expect(seen.dashboard.text).toContain('credentials_expired')
    expect(seen.dashboard.text).toMatch(/reauthRequired[\s\S]*since/)
    expect(seen.alerts).toEqual(['alert:reauthRequired'])
    // A poll reads the same status from the bank: nothing moves apart.
    expect(await sidecar.context.connectionHealth.pollBank()).toBe(true)
    expect((await surfaces()).list).toEqual(['reauthRequired', 'reauthRequired'])

    await bankSetsStatus({ status: 'active' })
    await webhookHandled('active')
    seen = await surfaces()
    expect(seen.list).toEqual(['active', null])
    expect(seen.one).toEqual(['active', null])
    expect(seen.dashboard.status).toBe('active')
    expect(seen.dashboard.text).not.toContain('credentials_expired')
    expect(seen.dashboard.text).toContain('none')
    expect(seen.alerts).toEqual(['alert:reauthRequired', 'recovery:reauthRequired'])
  }, 120_000)
})

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { launchBrowser, skipBrowserTests, type Browser } from './browser.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let browser: Browser
let connectionId: string
let currency: string

async function api(method: string, path: string, body?: unknown, token = API_TOKEN) {
  const response = await fetch(`${sidecar.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as any }
}

async function bankPays(body: Record<string, unknown>): Promise<string> {
  const sandbox = sidecar.context.bank.sandbox!
  const response = await fetch(`${sandbox.url}/_sandbox/connections/${connectionId}/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(201)
  await sandbox.advance(5)
  await sandbox.flushWebhooks()
  return ((await response.json()) as { id: string }).id
}

async function heldBack(transactionId: string): Promise<string> {
  let key = ''
  await vi.waitFor(
    async () => {
      const open = await api('GET', `/exceptions?type=suggested_match&transactionId=${transactionId}`)
      expect(open.body.data).toHaveLength(1)
      key = open.body.data[0].key
    },
    { timeout: 30_000, interval: 200 },
  )
  return key
}

beforeAll(async () => {
  if (skipBrowserTests) return
  sidecar = await startTestSidecar('trust_browser', ['receiver', 'worker', 'api'], {
    MATCH_AUTO_APPLY: 'shadow',
  })
  connectionId = (await onboardSandboxConnection(sidecar.context.bank)).id
  currency = (await sidecar.context.bank.client.accounts.list({ connectionId })).data[0]!.currency
  sidecar.context.bank.sandbox!.ctx.settings.generatedActivity = false
  browser = await launchBrowser()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await sidecar?.close()
  await sidecar?.drop()
})

describe.skipIf(skipBrowserTests)('the trust page in headless Chromium', () => {
  it('shows the mode, people’s agreement with the engine and each disagreement in points and reasons', async () => {
    for (const [id, number, amount] of [
      ['inv-tr-1', 'TR-5001', '410.00'],
      ['inv-tr-2', 'TR-5002', '90.00'],
      ['inv-tr-3', 'TR-5003', '90.00'],
      ['inv-tr-4', 'TR-5004', '66.00'],
      ['inv-tr-5', 'TR-5005', '55.00'],
    ] as const) {
      const put = await api('PUT', `/invoices/${id}`, { number, amount, currency, customerName: 'Initech' })
      expect(put.status, JSON.stringify(put.body)).toBeLessThan(300)
    }
    const clerk = await api('POST', '/users', { name: 'carla', role: 'clerk' })
    const agreed = await bankPays({
      amount: '410.00',
      paymentReference: 'TR-5001',
      counterpartyName: 'Initech',
    })
    const other = await bankPays({
      amount: '90.00',
      paymentReference: 'TR-5002',
      counterpartyName: 'Initech',
    })
    const waiting = await bankPays({
      amount: '66.00',
      paymentReference: 'TR-5004',
      counterpartyName: 'Initech',
    })
    await heldBack(agreed)
    await heldBack(other)
    const waitingKey = await heldBack(waiting)
    const token = clerk.body.token as string
    expect(
      (await api('POST', '/allocations', { transactionId: agreed, invoiceId: 'inv-tr-1' }, token)).status,
    ).toBe(201)
    expect(
      (await api('POST', '/allocations', { transactionId: other, invoiceId: 'inv-tr-3' }, token)).status,
    ).toBe(201)

    const page = await browser.context.newPage()
    await page.goto(`${sidecar.url}/`)
    await page.fill('input[name="token"]', token)
    await page.click('#signin-form button[type="submit"]')
    await page.waitForSelector('header .whoami')
    await page.click('nav >> text=Trust')
    await page.waitForSelector('#trust-shadow')
    expect(await page.getAttribute('nav a[aria-current="page"]', 'href')).toBe('/dashboard/trust')
    expect(await page.textContent('#trust-mode h2')).toContain('shadow')
    // Only an admin may switch the mode: a clerk sees no form.
    expect(await page.$('#trust-switch')).toBeNull()
    expect(await page.textContent('#trust-lines b')).toBe('3')
    expect(await page.textContent('#trust-agreed b')).toBe('1')
    expect(await page.textContent('#trust-disagreed b')).toBe('1')
    expect(await page.textContent('#trust-open b')).toBe('1')
    expect(await page.textContent('#trust-rate b')).toBe('50.0 %')
    const row = `#disagreements tr[data-transaction-id="${other}"]`
    const disagreement = (await page.textContent(row))!
    expect(disagreement).toContain('TR-5002')
    expect(disagreement).toContain('matched other invoices or amounts')
    expect(disagreement).toContain('inv-tr-3')
    expect(disagreement).toMatch(/\+\d+ pts/)
    // Points, never a percentage that no calibration measured.
    expect(await page.textContent(`${row} td.num`)).toMatch(/^\d+ pts$/)
    expect(disagreement).not.toMatch(/\d %/)
    expect(await page.$$('#disagreements tbody tr')).toHaveLength(1)

    // The period chosen on the page; a reversed one is named and the last 30 days shown instead.
    await page.fill('#trust-period input[name="from"]', '2020-01-01')
    await page.fill('#trust-period input[name="to"]', '2020-01-31')
    await page.click('#trust-period button')
    await page.waitForSelector('#no-disagreements')
    expect(await page.textContent('#trust-lines b')).toBe('0')
    await page.goto(`${sidecar.url}/dashboard/trust?from=2026-03-05&to=2026-03-01`)
    expect(await page.textContent('#trust-problem')).toContain('from must not be after to')
    expect(await page.textContent('#trust-lines b')).toBe('3')

    // The held-back payment still waiting: its score is shown in points on the exceptions page.
    await page.click('nav >> text=Exceptions')
    const suggestion = `tr[data-key="${waitingKey}"]`
    await page.waitForSelector(suggestion)
    expect(await page.textContent(`${suggestion} td.num`)).toMatch(/^\d+ pts$/)
    expect(await page.textContent(suggestion)).toContain('the engine would have applied this by itself')

    // An admin switches automation on from the page; the running sidecar applies the next payment itself.
    const admin = await api('POST', '/users', { name: 'ada', role: 'admin' })
    await browser.context.clearCookies()
    const adminPage = await browser.context.newPage()
    await adminPage.goto(`${sidecar.url}/dashboard/trust`)
    await adminPage.fill('input[name="token"]', admin.body.token)
    await adminPage.click('#signin-form button[type="submit"]')
    await adminPage.waitForSelector('#trust-switch')
    await adminPage.selectOption('#trust-switch select[name="autoApply"]', 'on')
    await adminPage.click('#trust-switch button')
    await adminPage.waitForSelector('.notice.ok >> text=Automatic matching is on')
    expect(await adminPage.textContent('#trust-mode')).toContain('Set by ada')
    const next = await bankPays({ amount: '55.00', paymentReference: 'TR-5005', counterpartyName: 'Initech' })
    await vi.waitFor(
      async () => {
        const allocations = (await api('GET', `/allocations?transactionId=${next}`)).body.data
        expect(allocations).toMatchObject([{ invoiceId: 'inv-tr-5', madeBy: 'engine' }])
      },
      { timeout: 30_000, interval: 200 },
    )
  }, 120_000)
})

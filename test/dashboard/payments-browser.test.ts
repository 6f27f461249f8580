import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enqueueMatches, upsertTransactions } from '../../src/store/index.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { CONNECTION_A, mirrorRow, txId } from '../support/mirror-fixture.js'
import { launchBrowser, skipBrowserTests, type Browser } from './browser.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let browser: Browser
let page: Page
const cspViolations: string[] = []
const today = new Date().toISOString().slice(0, 10)
const daysAgo = (n: number) => new Date(Date.parse(today) - n * 86_400_000).toISOString().slice(0, 10)

beforeAll(async () => {
  if (skipBrowserTests) return
  sidecar = await startTestSidecar('dash_payments', ['api'])
  for (const [id, number, amount, currency, customerName] of [
    ['inv-a', 'INV-2026-0100', '250.00', 'EUR', 'Globex Corporation'],
    ['inv-b', 'INV-2026-0101', '99.95', 'EUR', 'Initech'],
    ['inv-c', 'INV-2026-0102', '40.00', 'USD', 'Initech US'],
    ['inv-j', 'JP-7', '150000', 'JPY', 'Kaisha KK'],
  ]) {
    const put = await fetch(`${sidecar.url}/api/invoices/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number, amount, currency, customerName }),
    })
    expect(put.status).toBe(201)
  }
  const { db } = sidecar.context.store
  const line = (n: number, fields: Parameters<typeof mirrorRow>[1]) =>
    mirrorRow(n, { raw_description: null, description: null, ...fields })
  await upsertTransactions(db, [
    line(1, {
      amount: '250',
      currency: 'EUR',
      payment_reference: 'INV-2026-0100',
      counterparty_name: 'Globex Corp',
      posted_date: daysAgo(3),
    }),
    line(2, {
      amount: '40',
      currency: 'EUR',
      payment_reference: 'order 77',
      counterparty_name: 'Initech',
      posted_date: daysAgo(2),
    }),
    line(3, {
      amount: '150000',
      currency: 'JPY',
      payment_reference: 'JP-7',
      counterparty_name: 'Kaisha KK',
      posted_date: daysAgo(1),
    }),
    line(4, {
      amount: '60',
      currency: 'EUR',
      payment_reference: null,
      counterparty_name: 'Hooli',
      posted_date: daysAgo(1),
    }),
  ])
  await enqueueMatches(db, 'transaction', [txId(1), txId(2), txId(3), txId(4)])
  await sidecar.context.matching.runNow()
  await db
    .insertInto('sync_streams')
    .values({
      connection_id: CONNECTION_A,
      cursor: null,
      head_cursor: null,
      bootstrap_state: 'streaming',
      last_success_at: new Date(Date.now() - 90_000),
      last_error: null,
      updated_at: new Date(),
    })
    .execute()
  browser = await launchBrowser()
  page = await browser.context.newPage()
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text())
  })
  await page.goto(`${sidecar.url}/`)
  await page.fill('input[name="token"]', API_TOKEN)
  await page.click('#signin-form button[type="submit"]')
  await page.waitForSelector('header .whoami')
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await sidecar?.close()
  await sidecar?.drop()
})

const ids = async () =>
  page.$$eval('#payments tr[data-payment-id]', (rows) =>
    rows.map((row) => row.getAttribute('data-payment-id')),
  )

describe.skipIf(skipBrowserTests)('the Payments page in headless Chromium', () => {
  it('searches bank lines by payer, amount, reference and posting day on the server, amounts in their decimals', async () => {
    await page.click('nav >> text=Payments')
    expect(await ids()).toEqual([txId(1), txId(2), txId(3), txId(4)])
    // Amounts carry their currency's decimals: 250.00 EUR, 150,000 JPY.
    expect(await page.textContent(`tr[data-payment-id="${txId(1)}"] td.num`)).toBe('250.00 EUR')
    expect(await page.textContent(`tr[data-payment-id="${txId(3)}"] td.num`)).toBe('150,000 JPY')
    expect(await page.getAttribute(`tr[data-payment-id="${txId(1)}"]`, 'data-state')).toBe('matched')

    await page.fill('#payment-search input[name="payer"]', 'initech')
    await page.click('#payment-search button[type="submit"]')
    await page.waitForURL(/payer=initech/)
    expect(await ids()).toEqual([txId(2)])

    await page.goto(`${sidecar.url}/dashboard/payments?amount=150000`)
    expect(await ids()).toEqual([txId(3)])
    await page.goto(
      `${sidecar.url}/dashboard/payments?reference=order%2077&from=${daysAgo(2)}&to=${daysAgo(2)}`,
    )
    expect(await ids()).toEqual([txId(2)])
    await page.goto(`${sidecar.url}/dashboard/payments?amount=12,50`)
    expect(await page.textContent('#payments-problem')).toContain('query.amount')
    expect(await ids()).toEqual([])
  })

  it('matches a payment by hand through the invoice typeahead, offering open invoices in its currency only', async () => {
    await page.goto(`${sidecar.url}/dashboard/payments?payer=initech`)
    const row = `tr[data-payment-id="${txId(2)}"]`
    expect(await page.getAttribute(row, 'data-state')).toBe('unmatched')
    const input = `${row} input[data-typeahead]`
    const list = `#open-invoices-${txId(2)}`
    // Nothing is listed before a person types: no list of every open invoice.
    expect(await page.$$(`${list} option`)).toHaveLength(0)
    await page.click(input)
    await page.keyboard.type('Initech')
    await page.waitForSelector(`${list} option[value="inv-b"]`, { state: 'attached' })
    // INV-2026-0102 belongs to an Initech too, but in USD: not offered for a EUR payment.
    expect(
      await page.$$eval(`${list} option`, (options) => options.map((o) => o.getAttribute('value'))),
    ).toEqual(['inv-b'])
    expect(await page.getAttribute(`${list} option[value="inv-b"]`, 'label')).toBe(
      'INV-2026-0101 · Initech · 99.95 EUR open',
    )
    // Choosing the suggestion puts its value (the invoice id) in the field, as a click in the list would.
    await page.fill(input, 'inv-b')
    await page.click(`${row} button:has-text("Match")`)
    await page.waitForSelector('.notice.ok >> text=to invoice inv-b')
    expect(await page.getAttribute(row, 'data-state')).toBe('matched')
    expect(cspViolations).toEqual([])
  })

  it('offers the same typeahead on the exceptions page, in place of a list of every open invoice', async () => {
    await page.goto(`${sidecar.url}/dashboard/exceptions`)
    const input = `tr[data-key^="unmatched_payment:${txId(4)}"] input[data-typeahead]`
    await page.click(input)
    await page.keyboard.type('250')
    // The list says which question it answers once the page has shown the answer: the network answer alone comes
    // before the page's script has read it, and an earlier keystroke's list may still be showing then.
    await page.waitForSelector('datalist[data-answers="250"]', { state: 'attached' })
    // Paid invoices are not offered: INV-2026-0100 (250.00) is matched already.
    expect(await page.$$('datalist option')).toHaveLength(0)
    expect(await page.$('#open-invoices')).toBeNull()
  })
})

describe.skipIf(skipBrowserTests)('the Charts page in headless Chromium', () => {
  it('draws the match rate and cash per day, queue depth and oldest wait, and sync lag per connection', async () => {
    await page.click('nav >> text=Charts')
    const rates = await page.$$eval('#chart-match-rate circle[data-rate]', (points) =>
      points.map((point) => [point.getAttribute('data-day'), point.getAttribute('data-rate')]),
    )
    // EUR (most days with inflows): the 250 matched in full, the 40 matched by hand, the 60 not at all.
    expect(rates).toEqual([
      [daysAgo(3), '1.0000'],
      [daysAgo(2), '1.0000'],
      [daysAgo(1), '0.0000'],
    ])
    expect(await page.$$('#chart-cash svg rect[fill="#2e9e5b"]')).not.toHaveLength(0)
    expect(await page.textContent('#chart-cash .filters')).toContain('JPY')
    const queues = await page.$$eval('#chart-queues g[data-label]', (bars) =>
      bars.map((bar) => bar.getAttribute('data-label')),
    )
    expect(queues.length).toBeGreaterThanOrEqual(2)
    const lag = await page.getAttribute(
      `#chart-sync-lag g[data-label="${CONNECTION_A.slice(0, 8)}"]`,
      'data-value',
    )
    expect(Number(lag)).toBeGreaterThanOrEqual(90)
    expect(await page.textContent('#chart-sync-lag')).toMatch(/\d+ (s|min)/)
    expect(cspViolations).toEqual([])
  })
})

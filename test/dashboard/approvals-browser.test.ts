import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startControlledSidecar, type Controlled } from '../controls/controls-fixture.js'
import { launchBrowser, skipBrowserTests, type Browser } from './browser.js'

/**
 * The Approvals page in Chromium (issue 26): operations of every kind a clerk made above the threshold wait there
 * with maker, amount, account and reason; an approver approves or declines each, a clerk only sees them.
 */
let s: Controlled
let browser: Browser

beforeAll(async () => {
  if (skipBrowserTests) return
  s = await startControlledSidecar('approvals_browser')
  browser = await launchBrowser()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await s?.close()
})

async function signIn(who: string) {
  await browser.context.clearCookies()
  const page = await browser.context.newPage()
  await page.goto(`${s.sidecar.url}/dashboard/approvals`)
  await page.fill('input[name="token"]', s.tokens[who]!)
  await page.click('#signin-form button[type="submit"]')
  await page.waitForSelector('main h2:has-text("Approvals")')
  return page
}

describe.skipIf(skipBrowserTests)('the Approvals page', () => {
  it('shows what waits, of every kind, and an approver approves or declines each', async () => {
    await s.invoice('ap-1', '9000.00')
    const note = await s.call('carl', 'PUT', '/api/credit-notes/cn-ap', {
      number: 'CN-AP',
      amount: '700.00',
      currency: 'USD',
      invoiceId: 'ap-1',
    })
    expect(note.status).toBe(202)
    const writeOff = await s.call('carl', 'POST', '/api/invoices/ap-1/write-off', {
      reason: 'bad_debt',
      amount: '650',
      note: 'customer insolvent',
    })
    expect(writeOff.status).toBe(202)
    const tx = await s.pay(11, '25000.00', null, 'Insurance Co')
    const [exception] = await s.openExceptions(tx)
    const ignore = await s.call(
      'carl',
      'POST',
      `/api/exceptions/${encodeURIComponent(exception!.key)}/dispose`,
      {
        kind: 'ignore',
        reason: 'insurance payout',
      },
    )
    expect(ignore.status).toBe(202)
    const lumpInvoice = await s.invoice('ap-3', '7000.00')
    const lump = await s.pay(12, '1.00', null, 'Unrelated Payer')
    const advice = await s.call('carl', 'POST', `/api/transactions/${lump}/remittance`, {
      lines: [{ invoiceNumber: lumpInvoice, amount: '7000.00' }],
      fee: '6999.00',
    })
    expect(advice.status).toBe(202)

    // A clerk sees the list but no decision buttons.
    const clerkPage = await signIn('cleo')
    expect(await clerkPage.$$('#approvals tbody tr')).toHaveLength(4)
    expect(await clerkPage.$('#approvals button')).toBeNull()
    await clerkPage.close()

    const page = await signIn('april')
    const row = (kind: string, id: string) => `#approvals tr[data-kind="${kind}"][data-id="${id}"]`
    const rows = {
      note: row('credit_note', 'cn-ap'),
      writeOff: row('disposition', writeOff.body.id),
      ignore: row('disposition', ignore.body.id),
      remittance: row('remittance', advice.body.importId),
    }
    for (const selector of Object.values(rows)) {
      expect((await page.textContent(`${selector} .maker`))?.trim()).toBe('carl · clerk')
    }
    expect(await page.textContent(rows.note)).toMatch(/Credit note.*700(\.00)? USD.*4100.*credit note CN-AP/s)
    expect(await page.textContent(rows.writeOff)).toMatch(
      /Write-off.*650(\.00)? USD.*write-off.*bad_debt \(customer insolvent\)/s,
    )
    expect(await page.textContent(rows.ignore)).toMatch(/Ignore.*25,?000(\.00)? USD.*8990.*insurance payout/s)
    expect(await page.textContent(rows.remittance)).toMatch(
      /Remittance fee.*6,?999(\.00)? USD.*write-off.*bank_fee: fee 6999/s,
    )

    await page.click(`${rows.note} button:has-text("Approve")`)
    await page.waitForSelector('.notice.ok >> text=approved and in force')
    expect(await page.$(rows.note)).toBeNull()
    await page.click(`${rows.ignore} button:has-text("Decline")`)
    await page.waitForSelector('.notice.ok >> text=declined')
    await page.click(`${rows.remittance} button:has-text("Approve")`)
    await page.waitForSelector('.notice.ok >> text=approved and in force')
    await page.click(`${rows.writeOff} button:has-text("Approve")`)
    await page.waitForSelector('#no-approvals')
    expect((await s.call('carl', 'GET', '/api/credit-notes/cn-ap')).body).toMatchObject({
      status: 'active',
      approvedBy: 'april',
    })
    const dispositions = (await s.call('carl', 'GET', '/api/dispositions')).body.data
    expect(dispositions.find((d: { id: string }) => d.id === ignore.body.id)).toMatchObject({
      status: 'declined',
      declinedBy: 'april',
    })
    expect(await s.invoiceState('ap-1')).toMatchObject({ amountCredited: '700.00', amountWrittenOff: '650' })
    expect(await s.invoiceState('ap-3')).toMatchObject({ status: 'paid' })
  }, 90_000)

  it('refuses the maker’s own approval with a notice naming the rule', async () => {
    await s.invoice('ap-2', '1000.00', 'c-beta')
    const made = await s.call('april', 'POST', '/api/invoices/ap-2/write-off', {
      reason: 'bad_debt',
      amount: '900',
    })
    expect(made.status).toBe(202)
    const page = await signIn('april')
    await page.click(`#approvals tr[data-id="${made.body.id}"] button:has-text("Approve")`)
    await page.waitForSelector('.notice.error >> text=cannot also approve it')
    expect(await page.$(`#approvals tr[data-id="${made.body.id}"]`)).not.toBeNull()
  }, 60_000)
})

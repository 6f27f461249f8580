import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_DIALECTS } from '../../src/sandbox/index.js'
import { bankReports, streamHead } from '../support/ledger-helpers.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

/**
 * A sync page's exact bytes, pinned for any cheaper encoding of the endpoint (docs/performance.md, issue 29, fifth
 * pass): every page, in every dialect, page size and fieldset, must be what `res.json` sends for its content, i.e.
 * JSON.stringify's text in UTF-8, and carry the same bank data as the endpoints that use `res.json`.
 */
const TEXTS = [
  'plain ascii',
  '••4321',
  'Zahlung für Rechnung «42», 100 €',
  'quote " backslash \\ tab \t newline \n',
  'emoji 😀 and 中文',
  '\u0001\u001f\u007f\u0080\u00ff',
  '',
]

let harness: SandboxHarness
let connectionId: string
let cursor: string
const removedIds: string[] = []

beforeAll(async () => {
  harness = await startSandbox({ scheduledSyncIntervalSeconds: 0, generatedActivity: false })
  connectionId = (await connectReadyBank(harness)).connection.id
  const before = await bankReports(harness, connectionId, {
    amount: '1.00',
    description: 'before the cursor',
  })
  const gone = await bankReports(harness, connectionId, { amount: '2.00', description: '• removed' })
  cursor = await streamHead(harness, `connectionId=${connectionId}`)
  for (const [i, text] of TEXTS.entries()) {
    await bankReports(harness, connectionId, {
      amount: `${i}.50`,
      description: text,
      counterpartyName: text,
      counterpartyAccountMasked: '••4321',
    })
  }
  await harness.request('PATCH', `/_sandbox/transactions/${before.id}`, {
    key: null,
    body: { description: 'é' },
  })
  await harness.request('DELETE', `/_sandbox/transactions/${gone.id}`, { key: null })
  removedIds.push(gone.id)
})
afterAll(() => harness?.close())

async function rawPage(query: string): Promise<{ bytes: Buffer; headers: Headers; body: any }> {
  const response = await fetch(`${harness.url}/v1/transactions/sync?${query}`, {
    headers: { Authorization: `Bearer ${harness.apiKey}` },
  })
  expect(response.status).toBe(200)
  const bytes = Buffer.from(await response.arrayBuffer())
  return { bytes, headers: response.headers, body: JSON.parse(bytes.toString('utf8')) }
}

/** Every page from the cursor, each checked to be exactly what `res.json` would send for its content. */
async function drainChecked(query: string): Promise<any[]> {
  const pages: any[] = []
  let at = cursor
  for (;;) {
    const page = await rawPage(`connectionId=${connectionId}&cursor=${encodeURIComponent(at)}${query}`)
    expect(page.bytes.equals(Buffer.from(JSON.stringify(page.body), 'utf8'))).toBe(true)
    expect(page.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(page.headers.get('content-length')).toBe(String(page.bytes.length))
    pages.push(page.body)
    at = page.body.nextCursor
    if (!page.body.hasMore) return pages
  }
}

describe('GET /v1/transactions/sync: the bytes of a page', () => {
  for (const dialect of SANDBOX_DIALECTS) {
    for (const query of ['&limit=1', '&limit=3', '&limit=500', '&limit=2&fields=description']) {
      it(`${dialect}${query}: each page is JSON.stringify's text of its content, in UTF-8`, async () => {
        expect((await harness.request('PUT', '/_sandbox/dialect', { body: { name: dialect } })).status).toBe(
          200,
        )
        const pages = await drainChecked(query)
        expect(pages.flatMap((p) => p.events)).toHaveLength(TEXTS.length + 2)
      })
    }
  }

  it('seed dialect: the embedded transactions are those GET /v1/transactions/{id} shows (res.json)', async () => {
    await harness.request('PUT', '/_sandbox/dialect', { body: { name: 'seed' } })
    const events = (await drainChecked('&limit=4')).flatMap((p) => p.events)
    const descriptions: string[] = []
    for (const event of events) {
      if (event.type === 'removed') {
        expect(removedIds).toContain(event.transaction.id)
        continue
      }
      const shown = await harness.request('GET', `/v1/transactions/${event.transaction.id}`)
      expect(event.transaction).toEqual(shown.body)
      descriptions.push(event.transaction.description)
    }
    expect(descriptions).toEqual([...TEXTS, 'é'])
  })

  it('a lone surrogate in the bank data: the page is still JSON.stringify text, with the surrogate escaped', async () => {
    const lone = await bankReports(harness, connectionId, { amount: '9.00', description: 'lone \ud800 • x' })
    const events = (await drainChecked('&limit=500')).flatMap((p) => p.events)
    const raw = (await rawPage(`connectionId=${connectionId}&cursor=${encodeURIComponent(cursor)}`)).bytes
    expect(raw.toString('utf8')).toContain('lone \\ud800 • x')
    expect(events.find((e) => e.transaction.id === lone.id).transaction.description).toBe('lone \ud800 • x')
  })
})

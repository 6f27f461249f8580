import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CAMT054_LIMITS } from '../../src/closing/index.js'
import { enqueueMatches, upsertTransactions } from '../../src/store/index.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import { snapshotTables } from '../support/table-snapshot.js'
import { API_TOKEN, startTestSidecar } from './sidecar-fixture.js'

// Issue 26: one clerk's camt.054 upload (9.5 MB, 800,000 attributes) held the sidecar's event loop for 8.7 s, a
// credited charge made a negative fee, parser messages reached the client, and a CSV advice of more than 65,535
// lines answered 500.

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let clerk = ''
let tx = ''

async function post(body: string, contentType: string, query = '') {
  const response = await fetch(`${sidecar.url}/api/transactions/${tx}/remittance${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${clerk}`, 'content-type': contentType },
    body,
  })
  const text = await response.text()
  return { status: response.status, body: text.startsWith('{') ? (JSON.parse(text) as any) : text }
}

const payout = readFileSync(new URL('../../fixtures/camt054/psp-payout.xml', import.meta.url), 'utf8')
const notification = (inner: string) =>
  `<?xml version="1.0"?><Document><BkToCstmrDbtCdtNtfctn>${inner}</BkToCstmrDbtCdtNtfctn></Document>`

beforeAll(async () => {
  sidecar = await startTestSidecar('hostile_upload', ['api'])
  const users = await fetch(`${sidecar.url}/api/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'carl', role: 'clerk' }),
  })
  clerk = ((await users.json()) as { token: string }).token
  for (const [id, number, amount] of [
    ['inv-h1', 'INV-8001', '600.00'],
    ['inv-h2', 'INV-8002', '450.00'],
    ['inv-h3', 'INV-8003', '400.00'],
  ]) {
    const put = await fetch(`${sidecar.url}/api/invoices/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number, amount, currency: 'EUR' }),
    })
    expect(put.status).toBe(201)
  }
  const { db } = sidecar.context.store
  await upsertTransactions(db, [
    mirrorRow(1, { amount: '1441.30', currency: 'EUR', payment_reference: null, description: null }),
  ])
  await enqueueMatches(db, 'transaction', [txId(1)])
  await sidecar.context.matching.runNow()
  tx = txId(1)
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('camt.054 uploads', () => {
  it('answers a 5.6 MB, 800,000-attribute upload 413 naming the cap, before reading it; nothing written', async () => {
    const before = await snapshotTables(sidecar.context.store.db, sidecar.schema)
    const bomb = notification(`<Ntfctn>${'<X a="1" b="2" c="3" d="4"/>'.repeat(200_000)}</Ntfctn>`)
    expect(bomb.length).toBeGreaterThan(5_000_000)
    const answer = await post(bomb, 'application/xml')
    expect(answer.status).toBe(413)
    expect(answer.body.error).toMatchObject({ code: 'payload_too_large' })
    expect(answer.body.error.message).toContain(`${CAMT054_LIMITS.bytes}-byte limit`)
    expect(await snapshotTables(sidecar.context.store.db, sidecar.schema)).toEqual(before)
  })

  it('refuses documents under the byte cap with too many elements or attributes or too deep, naming the limit', async () => {
    const cases: Array<[string, string]> = [
      [
        notification('<a b="1" c="2" d="3" e="4"/>'.repeat(6_000)),
        `more than ${CAMT054_LIMITS.attributes} attributes`,
      ],
      [
        notification('<a/>'.repeat(CAMT054_LIMITS.elements + 1)),
        `more than ${CAMT054_LIMITS.elements} elements`,
      ],
      [notification('<a>'.repeat(100) + '</a>'.repeat(100)), `more than ${CAMT054_LIMITS.depth} deep`],
    ]
    for (const [xml, limit] of cases) {
      expect(Buffer.byteLength(xml)).toBeLessThan(CAMT054_LIMITS.bytes)
      const answer = await post(xml, 'application/xml')
      expect(answer.status).toBe(400)
      expect(answer.body.error).toMatchObject({
        code: 'camt054_too_complex',
        details: [{ path: 'body', message: expect.stringContaining(limit) }],
      })
    }
  })

  it('names bad XML in its own words: no text of the parser reaches the client', async () => {
    const answer = await post(notification('<Ntfctn><Ntry></Ntfctn>'), 'application/xml')
    expect(answer.status).toBe(400)
    expect(answer.body.error.code).toBe('invalid_camt054')
    expect(answer.body.error.message).toContain('not well-formed XML')
    expect(JSON.stringify(answer.body)).not.toMatch(/Expected closing tag|instead of closing|opened in line/)
  })

  it('refuses charges credited back that make the fee negative, naming the fee; control: the same charges debited', async () => {
    const credited = payout.replace(
      '<Chrgs><Amt Ccy="EUR">3.70</Amt></Chrgs>',
      '<Chrgs><Rcrd><Amt Ccy="EUR">20.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Rcrd></Chrgs>',
    )
    const refused = await post(credited, 'application/xml')
    expect(refused.status).toBe(422)
    expect(refused.body.error.details).toEqual([
      { path: 'fee', message: expect.stringContaining('must be 0 or more') },
    ])
    expect(refused.body.writeOff).toBeUndefined()
    const done = await post(payout, 'application/xml')
    expect(done.status).toBe(201)
    expect(done.body).toMatchObject({ writeOff: '8.7' })
  })
})

describe('JSON and CSV advice', () => {
  it('refuses a fee below zero, naming the field', async () => {
    const json = await post(
      JSON.stringify({ lines: [{ invoiceNumber: 'INV-8001', amount: '600.00' }], fee: '-2' }),
      'application/json',
    )
    expect(json.status).toBe(400)
    expect(json.body.error.details).toEqual([{ path: 'body.fee', message: 'must be 0 or more' }])
    const csv = await post('invoiceNumber,amount,fee\nINV-8001,600.00,-2\n', 'text/csv')
    expect(csv.status).toBe(400)
    expect(csv.body.error.details).toEqual([{ path: 'line.2.fee', message: 'must be 0 or more' }])
  })

  it('caps a CSV advice at the lines a JSON advice may have; 65,536 lines are a 400 naming the cap, not a 500', async () => {
    const rows = (n: number) =>
      `invoiceNumber,amount\n${Array.from({ length: n }, (_, i) => `NOPE-${i},1.00`).join('\n')}\n`
    for (const n of [10_001, 65_536]) {
      const answer = await post(rows(n), 'text/csv')
      expect(answer.status).toBe(400)
      expect(answer.body.error).toMatchObject({ code: 'invalid_csv', stoppedAtLine: 10_002 })
      expect(answer.body.error.details).toEqual([
        { path: 'line.10002', message: expect.stringContaining('at most 10000 rows') },
      ])
    }
    // Control: at the cap the rows are read and each is checked (here: no such invoice).
    const atCap = await post(rows(10_000), 'text/csv')
    expect(atCap.status).toBe(422)
    expect(atCap.body.error.code).toBe('invalid_remittance')
  })
})

import iconv from 'iconv-lite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import type { JournalEntry } from '../../src/journal/index.js'
import { enqueueMatches, upsertTransactions } from '../../src/store/index.js'
import { testIo } from '../cli/test-io.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { ACCOUNT_A1, ACCOUNT_A2, mirrorRow, txId } from '../support/mirror-fixture.js'
import { createOpenApiValidator } from '../support/openapi-validator.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let viewer = ''
const openApi = createOpenApiValidator()
// The bank posted the payments in March of this year; bankrec books them today: one fiscal year, as DATEV needs.
const YEAR = new Date().getUTCFullYear()
const DAYS = `from=${YEAR}-01-01&to=${YEAR}-12-31`
const DATEV =
  `format=datev&currency=EUR&datevConsultant=1001&datevClient=42&datevFiscalYearStart=${YEAR}-01-01` +
  '&datevAccount=Bank%3D1200&datevAccount=Accounts%20Receivable%3D1400'

async function get(query: string, token = API_TOKEN) {
  const response = await fetch(`${sidecar.url}/api/journal?${query}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  })
  const bytes = Buffer.from(await response.arrayBuffer())
  const contentType = response.headers.get('content-type')
  const body: unknown = contentType?.includes('json') ? JSON.parse(bytes.toString('utf8')) : bytes
  const path = `/api/journal?${query}`
  expect(openApi.check({ method: 'GET', path, status: response.status, contentType, body })).toEqual([])
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    bytes,
    text: bytes.toString('utf8'),
  }
}

beforeAll(async () => {
  sidecar = await startTestSidecar('journal_exports', ['api'])
  const { db } = sidecar.context.store
  const put = (id: string, body: object) =>
    fetch(`${sidecar.url}/api/invoices/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  await put('inv-eur', {
    number: 'RE-2026-0042',
    amount: '1234.50',
    currency: 'EUR',
    customerName: 'Müller GmbH',
  })
  await put('inv-jpy', { number: 'INV-JP-7', amount: '150000', currency: 'JPY', customerName: 'Kaisha KK' })
  await upsertTransactions(db, [
    mirrorRow(1, {
      amount: '1234.50',
      currency: 'EUR',
      payment_reference: 'RE-2026-0042',
      counterparty_name: 'Müller GmbH',
      posted_date: `${YEAR}-03-01`,
    }),
    mirrorRow(2, {
      amount: '150000',
      currency: 'JPY',
      payment_reference: 'INV-JP-7',
      account_id: ACCOUNT_A2,
      counterparty_name: 'Kaisha KK',
      posted_date: `${YEAR}-03-02`,
    }),
  ])
  await enqueueMatches(db, 'transaction', [txId(1), txId(2)])
  await sidecar.context.matching.runNow()
  const created = await fetch(`${sidecar.url}/api/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'vera', role: 'viewer' }),
  })
  viewer = ((await created.json()) as { token: string }).token
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('journal exports over the API', () => {
  it("keeps one bank account's or one currency's entries", async () => {
    const all = JSON.parse((await get(DAYS)).text) as { entries: JournalEntry[] }
    expect(all.entries.map((entry) => entry.currency).sort()).toEqual(['EUR', 'JPY'])
    const a2 = JSON.parse((await get(`${DAYS}&account=${ACCOUNT_A2}`)).text) as { entries: JournalEntry[] }
    expect(a2.entries.map((entry) => [entry.bankAccountId, entry.currency])).toEqual([[ACCOUNT_A2, 'JPY']])
    const eur = JSON.parse((await get(`${DAYS}&currency=EUR`)).text) as { entries: JournalEntry[] }
    expect(eur.entries.map((entry) => entry.bankAccountId)).toEqual([ACCOUNT_A1])
  })

  it("dates bank lines and payment records by the bank's posting date, amounts in the currency's decimals", async () => {
    const qbo = await get(`${DAYS}&format=qbo-csv&currency=JPY`)
    expect(qbo.text.split('\r\n')[1]).toMatch(new RegExp(`^03/02/${YEAR},.*,150000$`))
    const payments = await get(`${DAYS}&format=xero-payments&currency=EUR&depositAccount=090`)
    expect(payments.text.split('\r\n')[1]).toBe(
      `Müller GmbH,RE-2026-0042,${YEAR}-03-01,1234.50,090,RE-2026-0042,EUR`,
    )
    const qboPayments = await get(`${DAYS}&format=qbo-payments&currency=JPY`)
    expect(qboPayments.text.split('\r\n')[1]!.split(',').slice(1, 7)).toEqual([
      `03/02/${YEAR}`,
      'INV-JP-7',
      'Kaisha KK',
      'Bank',
      'INV-JP-7',
      '150000',
    ])
  })

  it('answers a DATEV batch in Windows-1252 with a decimal comma, for a viewer too', async () => {
    const datev = await get(`${DAYS}&${DATEV}`, viewer)
    expect(datev.status).toBe(200)
    expect(datev.type).toBe('text/csv; charset=windows-1252')
    // ü is one byte (0xFC) in Windows-1252, two (0xC3 0xBC) in UTF-8.
    expect(datev.bytes.includes(0xfc)).toBe(true)
    expect(datev.bytes.includes(Buffer.from('ü', 'utf8'))).toBe(false)
    const lines = iconv.decode(datev.bytes, 'win1252').split('\r\n')
    expect(lines[0]!.startsWith('"EXTF";700;21;"Buchungsstapel";13;')).toBe(true)
    expect(lines[2]!.split(';').slice(0, 11)).toEqual([
      '1234,50',
      '"S"',
      '"EUR"',
      '',
      '',
      '',
      '1200',
      '1400',
      '',
      '0103',
      '"RE-2026-0042"',
    ])
    expect(lines[2]).toContain('Müller GmbH')
  })

  it('refuses bad input with a 400 naming it, and a caller without a token with a 401', async () => {
    const refusals: Array<[string, string]> = [
      [`${DAYS}&format=sage`, 'query.format'],
      [`${DAYS}&account=acc-1`, 'query.account'],
      [`${DAYS}&currency=eur`, 'query.currency'],
      ['from=2026-02-30&to=2026-03-01', 'query.from'],
      [`${DAYS}&format=datev&currency=EUR&datevClient=1`, 'query.datevConsultant'],
      [`${DAYS}&format=datev&currency=EUR&datevConsultant=1001&datevClient=1`, 'datevAccount'],
      [`${DAYS}&format=xero-csv`, 'currency'],
      [`${DAYS}&${DATEV.replace(`=${YEAR}-01-01`, `=${YEAR - 1}-01-01`)}`, 'datevFiscalYearStart'],
    ]
    for (const [query, path] of refusals) {
      const answer = await get(query)
      expect(answer.status, query).toBe(400)
      const { error } = JSON.parse(answer.text) as { error: { details: Array<{ path: string }> } }
      expect(
        error.details.map((detail) => detail.path),
        query,
      ).toContain(path)
    }
    expect((await get(DAYS, '')).status).toBe(401)
  })
})

describe('journal exports from the CLI', () => {
  it('takes the same options, and refuses several currencies in one import file with exit 2', async () => {
    const env = {
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: sidecar.schema,
      LOG_LEVEL: 'error',
    }
    const days = ['journal', '--from', `${YEAR}-01-01`, '--to', `${YEAR}-12-31`]
    const payments = testIo(env)
    expect(
      await runCli(
        [...days, '--format', 'qbo-payments', '--currency', 'EUR', '--deposit-account', 'Checking'],
        payments.io,
      ),
      payments.err(),
    ).toBe(0)
    expect(payments.out().split('\r\n')[1]).toContain(',Checking,RE-2026-0042,1234.50,')
    const datev = testIo(env)
    const datevArgs = [
      '--format',
      'datev',
      '--currency',
      'JPY',
      '--datev-consultant',
      '1001',
      '--datev-client',
      '7',
    ]
    const accounts = ['--datev-account', 'Bank=1200', '--datev-account', 'Accounts Receivable=1400']
    expect(await runCli([...days, ...datevArgs, ...accounts], datev.io), datev.err()).toBe(0)
    expect(datev.out().split('\r\n')[2]!.startsWith('150000;"S";"JPY";;;;1200;1400;;0203;')).toBe(true)
    const mixed = testIo(env)
    expect(
      await runCli(
        [...days, '--format', 'datev', '--datev-consultant', '1001', '--datev-client', '7', ...accounts],
        mixed.io,
      ),
    ).toBe(2)
    expect(mixed.err()).toContain('holds one currency; the days asked hold EUR, JPY')
    const bad = testIo(env)
    expect(await runCli([...days, '--currency', 'euro'], bad.io)).toBe(2)
    expect(bad.err()).toContain('--currency must be a currency code')
  })
})

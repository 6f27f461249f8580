import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enqueueMatches, upsertTransactions, verifyAuditChain } from '../../src/store/index.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import { API_TOKEN, startTestSidecar } from './sidecar-fixture.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let clerk = ''

async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  token = clerk,
) {
  const response = await fetch(`${sidecar.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': contentType }),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  const json = response.headers.get('content-type')?.includes('json')
  return { status: response.status, body: text && json ? (JSON.parse(text) as any) : text }
}

/** A payment; naming no invoice, the engine leaves it an open unmatched_payment. */
async function pay(n: number, amount: string, currency = 'USD', reference: string | null = null) {
  const { db } = sidecar.context.store
  await upsertTransactions(db, [
    mirrorRow(n, {
      amount,
      currency,
      payment_reference: reference,
      description: null,
      counterparty_name: 'Payout Co',
    }),
  ])
  await enqueueMatches(db, 'transaction', [txId(n)])
  await sidecar.context.matching.runNow()
  return txId(n)
}

async function invoice(
  id: string,
  number: string,
  amount: string,
  currency = 'USD',
  paymentReference?: string,
  customerName?: string,
) {
  const body = {
    number,
    amount,
    currency,
    ...(paymentReference ? { paymentReference } : {}),
    ...(customerName ? { customerName } : {}),
  }
  const put = await call('PUT', `/api/invoices/${id}`, body, undefined, API_TOKEN)
  expect(put.status).toBe(201)
}

const allocationsOf = async (tx: string) =>
  (await call('GET', `/api/allocations?transactionId=${tx}`)).body.data as any[]
const exceptionsOf = async (tx: string) =>
  (await call('GET', `/api/exceptions?transactionId=${tx}`)).body.data as any[]

beforeAll(async () => {
  sidecar = await startTestSidecar('remittance_api', ['api'], {
    MATCH_FEE_TOLERANCE_AMOUNT: '5.00',
    MATCH_WRITE_OFF_ACCOUNTS: 'bank_fee=6820,psp_fee=6830',
  })
  clerk = (await call('POST', '/api/users', { name: 'carl', role: 'clerk' }, undefined, API_TOKEN)).body.token
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('POST /api/transactions/{id}/remittance', () => {
  it('settles a lump sum whose invoices less the stated fee are its amount exactly, the fee written off', async () => {
    await invoice('inv-a1', 'INV-2001', '500.00')
    await invoice('inv-a2', 'INV-2002', '300.00')
    const tx = await pay(1, '785.00')
    expect(await exceptionsOf(tx)).toMatchObject([{ type: 'unmatched_payment' }])
    const done = await call('POST', `/api/transactions/${tx}/remittance`, {
      lines: [
        { invoiceNumber: 'INV-2001', amount: '500.00' },
        { invoiceNumber: 'inv 2002', amount: '300.00' },
      ],
      fee: '15.00',
    })
    expect(done.status).toBe(201)
    expect(done.body).toMatchObject({ writeOff: '15', difference: '0' })
    const allocations = await allocationsOf(tx)
    expect(allocations).toHaveLength(2)
    expect(allocations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          invoiceId: 'inv-a2',
          amount: '300',
          writeOff: '0',
          madeBy: 'person',
          actor: 'carl',
        }),
        // The fee goes on the largest line paying its invoice in full.
        expect.objectContaining({
          invoiceId: 'inv-a1',
          amount: '485',
          writeOff: '15',
          writeOffReason: 'bank_fee',
          writeOffAccount: '6820',
          actor: 'carl',
        }),
      ]),
    )
    expect(await exceptionsOf(tx)).toEqual([])
    for (const id of ['inv-a1', 'inv-a2'])
      expect((await call('GET', `/api/invoices/${id}`)).body).toMatchObject({ status: 'paid' })
    const audit = await call('GET', '/api/audit?action=remittance.imported')
    expect(JSON.stringify(audit.body)).toContain(tx)
    expect(await verifyAuditChain(sidecar.context.store.db)).toMatchObject({ ok: true })
  })

  it('settles a CSV payout report short by a difference within the tolerance, fee and difference written off', async () => {
    await invoice('inv-b1', 'INV-3001', '400.00')
    await invoice('inv-b2', 'INV-3002', '200.00')
    const tx = await pay(2, '587.00')
    const csv = 'invoiceNumber,amount,fee\nINV-3001,400.00,6.00\nINV-3002,200.00,4.00\n'
    const done = await call('POST', `/api/transactions/${tx}/remittance?feeReason=psp_fee`, csv, 'text/csv')
    expect(done.status).toBe(201)
    expect(done.body).toMatchObject({ writeOff: '13', difference: '3' })
    expect(await allocationsOf(tx)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          invoiceId: 'inv-b1',
          amount: '387',
          writeOff: '13',
          writeOffReason: 'psp_fee',
          writeOffAccount: '6830',
        }),
        expect.objectContaining({ invoiceId: 'inv-b2', amount: '200', writeOff: '0' }),
      ]),
    )
    expect(await exceptionsOf(tx)).toEqual([])
  })

  it('applies nothing when the advice is off by more than the tolerance, and says by how much', async () => {
    await invoice('inv-c1', 'INV-4001', '100.00')
    await invoice('inv-c2', 'INV-4002', '100.00')
    const tx = await pay(3, '150.00')
    const off = await call('POST', `/api/transactions/${tx}/remittance`, {
      lines: [
        { invoiceNumber: 'INV-4001', amount: '100.00' },
        { invoiceNumber: 'INV-4002', amount: '100.00' },
      ],
    })
    expect(off.status).toBe(422)
    expect(off.body.error.code).toBe('remittance_mismatch')
    expect(off.body.error.message).toContain('off by 50.00')
    expect(off.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'lines.1', message: expect.stringContaining('INV-4001') },
        { path: 'difference', message: '50.00' },
      ]),
    )
    expect(await allocationsOf(tx)).toEqual([])
    expect(await exceptionsOf(tx)).toMatchObject([{ type: 'unmatched_payment', amount: '150' }])
    expect((await call('GET', '/api/invoices/inv-c1')).body).toMatchObject({ amountOpen: '100' })
  })

  it('names each bad line (unknown, other currency, paid already) and writes nothing', async () => {
    await invoice('inv-d1', 'INV-5001', '90.00')
    await invoice('inv-d2', 'INV-5002', '60.00', 'EUR')
    await invoice('inv-d3', 'INV-5003', '40.00')
    const paid = await pay(4, '40.00')
    expect(
      (
        await call('POST', `/api/transactions/${paid}/remittance`, {
          lines: [{ invoiceNumber: 'INV-5003', amount: '40.00' }],
        })
      ).status,
    ).toBe(201)
    const tx = await pay(5, '190.00')
    const bad = await call('POST', `/api/transactions/${tx}/remittance`, {
      lines: [
        { invoiceNumber: 'INV-5001', amount: '90.00' },
        { invoiceNumber: 'INV-9999', amount: '10.00' },
        { invoiceNumber: 'INV-5002', amount: '60.00' },
        { invoiceNumber: 'INV-5003', amount: '40.00' },
      ],
    })
    expect(bad.status).toBe(422)
    expect(bad.body.error.code).toBe('invalid_remittance')
    expect(bad.body.error.details).toEqual([
      { path: 'lines.2', message: 'INV-9999: no invoice has this number' },
      { path: 'lines.3', message: 'INV-5002: the invoice is in EUR, the bank line in USD' },
      { path: 'lines.4', message: 'INV-5003: the invoice is paid already' },
    ])
    expect(await allocationsOf(tx)).toEqual([])
    const malformed = await call(
      'POST',
      `/api/transactions/${tx}/remittance`,
      'invoiceNumber,amount\nINV-5001,ninety\n',
      'text/csv',
    )
    expect(malformed.status).toBe(400)
    expect(malformed.body.error.details).toEqual([expect.objectContaining({ path: 'line.2.amount' })])
    expect(await allocationsOf(tx)).toEqual([])
  })

  it('replaces what the engine made of the payment', async () => {
    // The payer is the invoice's customer: an overpayment from a stranger is only suggested (issue 25 rule 2).
    await invoice('inv-e1', 'INV-6001', '100.00', 'USD', undefined, 'Payout Co')
    await invoice('inv-e2', 'INV-6002', '50.00', 'USD', undefined, 'Payout Co')
    const tx = await pay(6, '148.00', 'USD', 'INV-6001')
    expect(await allocationsOf(tx)).toMatchObject([{ invoiceId: 'inv-e1', madeBy: 'engine' }])
    const done = await call('POST', `/api/transactions/${tx}/remittance`, {
      lines: [
        { invoiceNumber: 'INV-6001', amount: '100.00' },
        { invoiceNumber: 'INV-6002', amount: '50.00' },
      ],
      fee: '2.00',
    })
    expect(done.status).toBe(201)
    const allocations = await allocationsOf(tx)
    expect(allocations).toHaveLength(2)
    expect(allocations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ invoiceId: 'inv-e1', amount: '98', writeOff: '2', madeBy: 'person' }),
        expect.objectContaining({ invoiceId: 'inv-e2', amount: '50', writeOff: '0', madeBy: 'person' }),
      ]),
    )
    expect(await exceptionsOf(tx)).toEqual([])
  })
})

const camt = (name: string) =>
  readFileSync(new URL(`../../fixtures/camt054/${name}`, import.meta.url), 'utf8')

describe('POST /api/transactions/{id}/remittance with a camt.054 notification', () => {
  it('settles a SEPA batch by RF, free text and an issued reference, the entry’s charges written off', async () => {
    await invoice('inv-f1', 'INV-7001', '500.00', 'EUR')
    await invoice('inv-f2', 'INV-7002', '300.00', 'EUR')
    await invoice('inv-f3', 'INV-7003', '1200.00', 'EUR', 'RF56 5390 0754 70')
    const tx = await pay(11, '1992.50', 'EUR')
    const done = await call(
      'POST',
      `/api/transactions/${tx}/remittance`,
      camt('sepa-batch.xml'),
      'application/xml',
    )
    expect(done.status).toBe(201)
    expect(done.body).toMatchObject({ transactionId: tx, writeOff: '7.5', difference: '0' })
    expect(await allocationsOf(tx)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ invoiceId: 'inv-f1', amount: '500', writeOff: '0', actor: 'carl' }),
        expect.objectContaining({ invoiceId: 'inv-f2', amount: '300', writeOff: '0' }),
        expect.objectContaining({
          invoiceId: 'inv-f3',
          amount: '1192.5',
          writeOff: '7.5',
          writeOffReason: 'bank_fee',
        }),
      ]),
    )
    for (const id of ['inv-f1', 'inv-f2', 'inv-f3'])
      expect((await call('GET', `/api/invoices/${id}`)).body).toMatchObject({ status: 'paid' })
    // The audit log names the document's entry.
    const audit = await call('GET', '/api/audit?action=remittance.imported')
    expect(JSON.stringify(audit.body)).toContain('camt.054 Ntry 1 (BATCH-0302-01)')
    expect(await exceptionsOf(tx)).toEqual([])
  })

  it('chooses the payout entry of the bank line’s amount, its payments’ fees written off as psp_fee', async () => {
    await invoice('inv-g1', 'INV-8001', '600.00', 'EUR')
    await invoice('inv-g2', 'INV-8002', '450.00', 'EUR')
    await invoice('inv-g3', 'INV-8003', '400.00', 'EUR')
    const tx = await pay(12, '1441.30', 'EUR')
    const xml = camt('psp-payout.xml')
    const wrongEntry = await call(
      'POST',
      `/api/transactions/${tx}/remittance?entry=po_1QgA19Zr`,
      xml,
      'text/xml',
    )
    expect(wrongEntry.status).toBe(422)
    expect(wrongEntry.body.error).toMatchObject({ code: 'camt_entry_mismatch' })
    expect(wrongEntry.body.error.message).toContain('of another amount')
    const done = await call(
      'POST',
      `/api/transactions/${tx}/remittance?feeReason=psp_fee`,
      xml,
      'application/xml',
    )
    expect(done.status).toBe(201)
    expect(done.body).toMatchObject({ writeOff: '8.7', difference: '0' })
    expect(await allocationsOf(tx)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          invoiceId: 'inv-g1',
          amount: '591.3',
          writeOff: '8.7',
          writeOffReason: 'psp_fee',
          writeOffAccount: '6830',
        }),
      ]),
    )
    expect(await exceptionsOf(tx)).toEqual([])
  })

  it('answers 422 when no entry fits or a payment names no invoice, 4xx for a bad document; writes nothing', async () => {
    const tx = await pay(13, '77.00', 'EUR')
    const none = await call(
      'POST',
      `/api/transactions/${tx}/remittance`,
      camt('psp-payout.xml'),
      'application/xml',
    )
    expect(none.status).toBe(422)
    expect(none.body.error.message).toContain(
      'No entry of the document fits the bank line (77.00 EUR received)',
    )
    expect(none.body.error.details).toHaveLength(2)
    const unknown = camt('psp-payout.xml').replace(
      '<Amt Ccy="EUR">1441.30</Amt>',
      '<Amt Ccy="EUR">77.00</Amt>',
    )
    const lines = await call(
      'POST',
      `/api/transactions/${tx}/remittance?entry=po_1QfX83Lk`,
      unknown,
      'application/xml',
    )
    expect(lines.status).toBe(422)
    expect(lines.body.error.code).toBe('invalid_remittance')
    // References that name no invoice for sure: a typo in an RF, two invoices in one payment's text.
    const unclear = `<Document><BkToCstmrDbtCdtNtfctn><Ntfctn><Ntry><Amt Ccy="EUR">77.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
      <NtryDtls><TxDtls><Amt Ccy="EUR">50.00</Amt><RmtInf><Strd><CdtrRefInf><Ref>RF00INV7001</Ref></CdtrRefInf></Strd></RmtInf></TxDtls>
      <TxDtls><Refs><EndToEndId>E2E-2</EndToEndId></Refs><Amt Ccy="EUR">27.00</Amt><RmtInf><Ustrd>INV-8001 INV-8002</Ustrd></RmtInf></TxDtls>
      <TxDtls><Amt Ccy="EUR">1.00</Amt><RmtInf><Ustrd>thanks</Ustrd></RmtInf></TxDtls>
      </NtryDtls></Ntry></Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`
    const refused = await call('POST', `/api/transactions/${tx}/remittance`, unclear, 'application/xml')
    expect(refused.status).toBe(422)
    expect(refused.body.error.details).toEqual([
      { path: 'lines.1', message: 'RF00INV7001: the check digits of RF00INV7001 do not add up' },
      { path: 'lines.2', message: 'E2E-2: names 2 invoices (INV-8001, INV-8002): a line pays one' },
      { path: 'lines.3', message: 'TxDtls 3: names no known invoice' },
    ])
    const bad: Array<[string, number, string]> = [
      ['<Document><BkToCstmrDbtCdtNtfctn>', 400, 'not well-formed XML'],
      ['<Document><BkToCstmrStmt/></Document>', 400, 'camt.053 statement'],
      [
        '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document>&x;</Document>',
        400,
        'DOCTYPE',
      ],
    ]
    for (const [body, status, message] of bad) {
      const answer = await call('POST', `/api/transactions/${tx}/remittance`, body, 'application/xml')
      expect(answer.status).toBe(status)
      expect(answer.body.error.code).toBe('invalid_camt054')
      expect(answer.body.error.message).toContain(message)
      expect(answer.body.error.message).not.toContain('root:')
    }
    // A compressed document is inflated first, as a JSON body is.
    const gzipped = await fetch(`${sidecar.url}/api/transactions/${tx}/remittance`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${clerk}`,
        'content-type': 'application/xml',
        'content-encoding': 'gzip',
      },
      body: gzipSync('<Document><BkToCstmrStmt/></Document>'),
    })
    expect(gzipped.status).toBe(400)
    expect(((await gzipped.json()) as any).error.message).toContain('camt.053 statement')
    const big = await call(
      'POST',
      `/api/transactions/${tx}/remittance`,
      `<Document>${' '.repeat(10 * 1024 * 1024)}</Document>`,
      'application/xml',
    )
    expect(big.status).toBe(413)
    expect(await allocationsOf(tx)).toEqual([])
  })
})

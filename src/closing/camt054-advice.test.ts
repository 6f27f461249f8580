import { readFileSync } from 'node:fs'
import { Decimal } from 'decimal.js'
import { describe, expect, it } from 'vitest'
import { camt054Advice, chooseEntry, entryAdvice } from './camt054-advice.js'
import { parseCamt054 } from './camt054-parse.js'

const payout = parseCamt054(
  readFileSync(new URL('../../fixtures/camt054/psp-payout.xml', import.meta.url), 'utf8'),
)
const line = (overrides: Partial<Parameters<typeof chooseEntry>[1]> = {}) => ({
  amount: '1441.30',
  currency: 'EUR',
  posted_date: '2026-03-03',
  bank_reference: null,
  payment_reference: null,
  customer_reference: null,
  ...overrides,
})

function refusal(run: () => unknown): { kind: string; code: string; message: string; details: unknown } {
  try {
    run()
  } catch (error) {
    return error as never
  }
  throw new Error('accepted')
}

describe('chooseEntry', () => {
  it('takes the credit entry of the bank line’s amount and currency', () => {
    expect(chooseEntry(payout, line()).entryRef).toBe('po_1QfX83Lk')
    expect(chooseEntry(payout, line({ amount: '250.00', posted_date: null })).entryRef).toBe('po_1QgA19Zr')
  })

  it('takes the entry asked for by NtryRef or AcctSvcrRef, if it fits', () => {
    expect(chooseEntry(payout, line(), 'PSP2026030300077').index).toBe(1)
    expect(refusal(() => chooseEntry(payout, line(), 'po_1QgA19Zr'))).toMatchObject({
      kind: 'unprocessable',
      code: 'camt_entry_mismatch',
      message: expect.stringContaining('of another amount'),
    })
    expect(refusal(() => chooseEntry(payout, line(), 'nope'))).toMatchObject({
      message: expect.stringContaining('No entry has NtryRef or AcctSvcrRef "nope"'),
    })
  })

  it('narrows equal amounts by date, then by the bank’s reference; several left: 422 asking for ?entry=', () => {
    const twins = [
      payout[0]!,
      { ...payout[0]!, index: 2, bookingDate: '2026-03-09', valueDate: null, servicerRef: 'X2' },
    ]
    expect(chooseEntry(twins, line()).index).toBe(1)
    expect(chooseEntry(twins, line({ posted_date: '2026-03-20', bank_reference: 'X2' })).index).toBe(2)
    expect(refusal(() => chooseEntry(twins, line({ posted_date: '2026-03-20' })))).toMatchObject({
      kind: 'unprocessable',
      message: expect.stringContaining('2 entries fit the bank line: choose one with ?entry='),
    })
  })

  it('names why no entry fits', () => {
    const refused = refusal(() => chooseEntry(payout, line({ amount: '99.00' })))
    expect(refused).toMatchObject({ kind: 'unprocessable', code: 'camt_entry_mismatch' })
    expect(refused.details).toEqual([
      { path: 'Ntry.1', message: expect.stringContaining("of another amount than the bank line's 99.00") },
      { path: 'Ntry.2', message: expect.stringContaining('250.00 EUR credit booked 2026-03-04') },
    ])
    expect(refusal(() => chooseEntry(payout, line({ currency: 'USD' }))).details).toEqual(
      expect.arrayContaining([
        { path: 'Ntry.1', message: expect.stringContaining('in EUR, the bank line in USD') },
      ]),
    )
  })
})

describe('entryAdvice', () => {
  it('makes a line per payment named by its references, the transactions’ charges the fee', () => {
    expect(entryAdvice(payout[0]!, 'psp_fee')).toEqual({
      lines: [
        {
          amount: '600.00',
          reference: {
            label: 'ch_3Pq1A',
            structured: null,
            documents: null,
            text: 'Order 5521 Invoice INV-8001',
          },
        },
        {
          amount: '450.00',
          reference: { label: 'INV-8002', structured: null, documents: 'INV-8002', text: null },
        },
        {
          amount: '400.00',
          reference: { label: 'ch_3Pq1C', structured: null, documents: null, text: 'INV-8003' },
        },
      ],
      fee: '8.7',
      feeReason: 'psp_fee',
      source:
        'camt.054 Ntry 1 (po_1QfX83Lk): 1441.30 EUR credit booked 2026-03-03, AcctSvcrRef PSP2026030300077',
    })
  })

  it('splits a payment of several invoices by its structured blocks when their remitted amounts add up', () => {
    const strd = (ref: string, amount: string, currency = 'EUR') =>
      `<Strd><RfrdDocInf><Nb>${ref}</Nb></RfrdDocInf><RfrdDocAmt><RmtdAmt Ccy="${currency}">${amount}</RmtdAmt></RfrdDocAmt></Strd>`
    const entryOf = (blocks: string) =>
      parseCamt054(
        '<Document><BkToCstmrDbtCdtNtfctn><Ntfctn><Ntry><Amt Ccy="EUR">150.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>' +
          `<NtryDtls><TxDtls><Amt Ccy="EUR">150.00</Amt><RmtInf>${blocks}</RmtInf></TxDtls></NtryDtls></Ntry></Ntfctn>` +
          '</BkToCstmrDbtCdtNtfctn></Document>',
      )[0]!
    expect(entryAdvice(entryOf(strd('INV-1', '100.00') + strd('INV-2', '50.00'))).lines).toEqual([
      { amount: '100.00', reference: { label: 'INV-1', structured: null, documents: 'INV-1', text: null } },
      { amount: '50.00', reference: { label: 'INV-2', structured: null, documents: 'INV-2', text: null } },
    ])
    // Amounts that do not add up, or in another currency: one line naming both (refused later as ambiguous).
    for (const blocks of [
      strd('INV-1', '100.00') + strd('INV-2', '40.00'),
      strd('INV-1', '100.00') + strd('INV-2', '50.00', 'USD'),
    ]) {
      expect(entryAdvice(entryOf(blocks)).lines).toEqual([
        {
          amount: '150.00',
          reference: { label: 'INV-1', structured: null, documents: 'INV-1 INV-2', text: null },
        },
      ])
    }
  })

  it('refuses a debit payment or one in another currency inside the entry', () => {
    const entry = payout[0]!
    const bad = {
      ...entry,
      transactions: [
        { ...entry.transactions[0]!, credit: false },
        { ...entry.transactions[1]!, currency: 'USD' },
      ],
    }
    expect(refusal(() => entryAdvice(bad)).details).toEqual([
      { path: 'lines.1', message: expect.stringContaining('debit') },
      { path: 'lines.2', message: 'TxDtls is in USD, its entry in EUR' },
    ])
  })

  it('refuses charges credited back beyond those debited: the fee must be 0 or more, the field named', () => {
    const entry = payout[0]!
    const credited = { ...entry, charges: new Decimal('-2') }
    expect(refusal(() => entryAdvice(credited))).toMatchObject({
      kind: 'unprocessable',
      code: 'invalid_remittance',
      details: [{ path: 'fee', message: expect.stringContaining('must be 0 or more') }],
    })
    // Control: charges of zero are a fee of zero.
    expect(entryAdvice({ ...entry, charges: new Decimal(0) }).fee).toBe('0')
  })

  it('parses the document at once (off the event loop), and chooses its entry once the bank line is known', async () => {
    await expect(camt054Advice('<nope')).rejects.toThrow(/not well-formed/)
    const advice = await camt054Advice(
      readFileSync(new URL('../../fixtures/camt054/sepa-batch.xml', import.meta.url), 'utf8'),
    )
    expect(advice(line({ amount: '1992.5', posted_date: '2026-03-02' })).fee).toBe('7.5')
  })
})

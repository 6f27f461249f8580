import { describe, expect, it } from 'vitest'
import { findReferences } from './find-references.js'
import { InvoiceIndex } from './invoice-index.js'
import type { MatchInvoice } from './types.js'

const invoice = (id: string, number: string, extra: Partial<MatchInvoice> = {}): MatchInvoice => ({
  id,
  number,
  amount: '10',
  currency: 'EUR',
  ...extra,
})
const index = new InvoiceIndex([
  invoice('a', 'INV-1'),
  invoice('b', 'INV-2'),
  invoice('c', 'SO-9', { void: true }),
])

describe('findReferences', () => {
  it('names invoices in the order written, with the text that named them', () => {
    expect(findReferences(index, { accountId: 'x', description: 'inv2 and Inv-0001' })).toMatchObject({
      outcome: 'named',
      field: 'description',
      hits: [
        { invoiceIds: ['b'], reference: 'inv2', via: 'text', kind: 'full' },
        { invoiceIds: ['a'], reference: 'Inv-0001', via: 'text', kind: 'full' },
      ],
      setAside: [],
    })
  })

  it('still names a void invoice: a payment for it must not look unreferenced', () => {
    expect(findReferences(index, { accountId: 'x', paymentReference: 'SO 9' })).toMatchObject({
      outcome: 'named',
      hits: [{ invoiceIds: ['c'] }],
    })
  })

  it('finds an issued reference of letters only in free text, and none in a word of another length', () => {
    const lettered = new InvoiceIndex([
      invoice('d', 'INV-4', { paymentReference: 'KXQWZ' }),
      invoice('e', 'INV-5', { paymentReference: 'RF18539007547034' }),
    ])
    expect(findReferences(lettered, { accountId: 'x', description: 'paid kxqwz thanks' })).toMatchObject({
      outcome: 'named',
      hits: [{ invoiceIds: ['d'], reference: 'kxqwz', via: 'issued', kind: 'issued' }],
    })
    expect(findReferences(lettered, { accountId: 'x', description: 'paid kxqwzz thanks' })).toEqual({
      outcome: 'none',
    })
  })

  it('names nothing when no field names a known invoice', () => {
    expect(findReferences(index, { accountId: 'x', paymentReference: 'INV-3', description: null })).toEqual({
      outcome: 'none',
    })
  })

  describe('a Norwegian KID whose mod-11 check digit is `-`', () => {
    const kids = new InvoiceIndex([
      invoice('k', 'F-9010', { paymentReference: '1203458-' }),
      invoice('l', 'F-9011', { paymentReference: '1203461' }),
    ])

    it('is read in free text, unlabelled, as the issued reference with valid check digits', () => {
      expect(findReferences(kids, { accountId: 'x', description: 'Betaling 1203458- takk' })).toMatchObject({
        outcome: 'named',
        hits: [
          {
            invoiceIds: ['k'],
            reference: '1203458-',
            kind: 'issued',
            scheme: 'no_kid',
            checkDigits: 'valid',
          },
        ],
      })
    })

    it('is not its body alone, nor a `-` joining the digits to more', () => {
      for (const description of ['Betaling 1203458 takk', 'Betaling 1203458-2024']) {
        expect(findReferences(kids, { accountId: 'x', description })).toEqual({ outcome: 'none' })
      }
    })

    it('labelled with a digit for its `-`, or a `-` for its digit, is a typo of it', () => {
      expect(findReferences(kids, { accountId: 'x', paymentReference: 'KID 12034587' })).toMatchObject({
        hits: [{ invoiceIds: ['k'], kind: 'issued', checkDigits: 'invalid', scheme: 'no_kid' }],
      })
      expect(findReferences(kids, { accountId: 'x', paymentReference: 'KID 120346-' })).toMatchObject({
        hits: [{ invoiceIds: ['l'], reference: '120346-', checkDigits: 'invalid' }],
      })
    })
  })
})

describe('findReferences: numbers that are no invoice reference', () => {
  const books = new InvoiceIndex([
    invoice('usd1', '100777', { currency: 'USD' }),
    invoice('usd2', '100424', { currency: 'USD' }),
    invoice('gbp', 'SI-04679', { currency: 'GBP' }),
    invoice('wire', '101266', { currency: 'USD' }),
    invoice('gbp2', 'SI-04308', { currency: 'GBP' }),
  ])

  it('sets aside the whole part of an amount in an X12 820 beside its RMR*IV invoices', () => {
    const found = findReferences(books, {
      accountId: 'x',
      paymentReference:
        'BPR*C*6287.39*C*ACH*CTX~TRN*1*0935676004*1093567600~RMR*IV*100777*PI*1608.22*1608.22~RMR*IV*100424*PI*4679.17*4679.17~',
    })
    expect(found).toMatchObject({
      outcome: 'named',
      hits: [{ invoiceIds: ['usd1'] }, { invoiceIds: ['usd2'] }],
    })
    if (found.outcome !== 'named') return
    expect(found.hits).toHaveLength(2)
    expect(found.setAside.map((hit) => hit.conflicts[0]?.code)).toEqual([
      'reads_as_amount',
      'reads_as_amount',
    ])
  })

  it('sets aside numbers in X12 segments that name no document (TRN, BPR, N1)', () => {
    const found = findReferences(books, {
      accountId: 'x',
      paymentReference: 'ST*820*0001~BPR*C*10.00*C*ACH*CTX~TRN*1*0935676004*04679~RMR*IV*100777*PI*10.00~',
    })
    expect(found).toMatchObject({ outcome: 'named', hits: [{ invoiceIds: ['usd1'] }] })
    if (found.outcome !== 'named') return
    expect(found.hits).toHaveLength(1)
    expect(found.setAside).toMatchObject([{ invoiceIds: ['gbp'], conflicts: [{ code: 'labelled' }] }])
  })

  it('sets aside digits glued into a Fedwire IMAD', () => {
    const found = findReferences(books, {
      accountId: 'x',
      description: 'FEDWIRE CREDIT B/O: EVERGREEN OBI=INVOICE 101266 IMAD: 0320MMQFMP2N004308',
    })
    expect(found).toMatchObject({ outcome: 'named', hits: [{ invoiceIds: ['wire'] }] })
    if (found.outcome !== 'named') return
    expect(found.hits).toHaveLength(1)
    expect(found.setAside).toMatchObject([{ invoiceIds: ['gbp2'], conflicts: [{ code: 'labelled' }] }])
  })
})

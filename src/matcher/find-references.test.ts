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

  it('names nothing when no field names a known invoice', () => {
    expect(findReferences(index, { accountId: 'x', paymentReference: 'INV-3', description: null })).toEqual({
      outcome: 'none',
    })
  })
})

import { describe, expect, it } from 'vitest'
import { InvoiceIndex } from './invoice-index.js'
import type { MatchInvoice } from './types.js'

const invoice = (id: string, number: string, extra: Partial<MatchInvoice> = {}): MatchInvoice => ({
  id,
  number,
  amount: '10',
  currency: 'EUR',
  ...extra,
})

describe('InvoiceIndex', () => {
  it('finds invoices by the token key of their number', () => {
    const index = new InvoiceIndex([invoice('a', 'INV-0042'), invoice('b', 'inv 42', { entityId: 'e2' })])
    expect(index.withNumber(['INV', '42']).map((found) => found.id)).toEqual(['a', 'b'])
  })

  it('replaces an invoice on upsert and forgets it on remove', () => {
    const index = new InvoiceIndex([invoice('a', 'INV-1', { customerName: 'Acme' })])
    index.upsert(invoice('a', 'INV-2', { customerName: 'Globex' }))
    expect(index.withNumber(['INV', '1'])).toEqual([])
    expect(index.withNumber(['INV', '2']).map((found) => found.id)).toEqual(['a'])
    expect(index.ofCustomer('acme')).toEqual([])
    expect(index.ofCustomer('GLOBEX LTD').map((found) => found.id)).toEqual(['a'])
    index.remove('a')
    expect(index.size).toBe(0)
    expect(index.scan(['INV', '2'])).toEqual([])
  })

  it('finds invoices by customer name or alias', () => {
    const index = new InvoiceIndex([
      invoice('a', 'X-1', { customerName: 'Acme', customerAliases: ['ACME Europe'] }),
    ])
    expect(index.ofCustomer('acme europe gmbh').map((found) => found.id)).toEqual(['a'])
    expect(index.ofCustomer('')).toEqual([])
  })
})

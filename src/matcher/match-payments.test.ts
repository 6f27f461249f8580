import { describe, expect, it } from 'vitest'
import { MatcherInputError } from './allocate.js'
import { InvoiceIndex } from './invoice-index.js'
import { matchPayments } from './match-payments.js'
import type { MatchInvoice, MatchTransaction } from './types.js'

const invoices: MatchInvoice[] = [
  { id: 'a', number: 'INV-1', amount: '10', currency: 'EUR' },
  { id: 'b', number: 'INV-2', amount: '10', currency: 'EUR' },
]
const payment: MatchTransaction = {
  id: 't',
  accountId: 'acc',
  amount: '20',
  currency: 'EUR',
  status: 'posted',
  paymentReference: 'INV-1 INV-2',
}

describe('matchPayments', () => {
  it('refuses a set missing an invoice a transaction names in the full index', () => {
    const index = new InvoiceIndex(invoices)
    expect(() =>
      matchPayments({ index, invoices: [invoices[0] as MatchInvoice], transactions: [payment] }),
    ).toThrow(MatcherInputError)
  })

  it('returns what each inflow named, for the store to find the closed set of a later change', () => {
    const result = matchPayments({ invoices, transactions: [payment] })
    expect(result.references.get('t')).toMatchObject({
      outcome: 'named',
      hits: [{ invoiceIds: ['a'] }, { invoiceIds: ['b'] }],
    })
  })

  it('uses references the caller already found instead of reading the fields again', () => {
    const references = new Map([
      [
        't',
        {
          outcome: 'named' as const,
          field: 'paymentReference' as const,
          hits: [
            {
              invoiceIds: ['b'],
              reference: 'INV-2',
              via: 'text' as const,
              kind: 'full' as const,
              scheme: null,
              checkDigits: null,
              invoiceWord: true,
              short: false,
              conflicts: [],
            },
          ],
          setAside: [],
        },
      ],
    ])
    // The amount fits the one invoice the given references name (issue 25 rule 2 weighs an amount that does not).
    const result = matchPayments({ invoices, transactions: [{ ...payment, amount: '10' }], references })
    expect(result.allocations.map((allocation) => allocation.invoiceId)).toEqual(['b'])
  })

  it('gives a state for every invoice of the set, in id order', () => {
    const result = matchPayments({ invoices: [...invoices].reverse(), transactions: [] })
    expect(result.invoices.map((state) => [state.invoiceId, state.status])).toEqual([
      ['a', 'open'],
      ['b', 'open'],
    ])
  })
})

import { describe, expect, it } from 'vitest'
import { Allocator, MatcherInputError, referenceConfidence, type Payment } from './allocate.js'
import { matchConfig } from './config.js'
import { InvoiceLedger } from './invoice-ledger.js'
import { toUnits } from './money.js'

const payment = (amount: string, phase: Payment['phase'] = 'settled'): Payment => ({
  transaction: {
    id: 't',
    accountId: 'a',
    amount,
    currency: 'EUR',
    status: phase === 'settled' ? 'posted' : 'pending',
  },
  amount: toUnits(amount),
  phase,
})
const ledgers = () =>
  new Map(
    [
      { id: 'a', number: 'A-1', amount: '10', currency: 'EUR' },
      { id: 'b', number: 'B-1', amount: '20', currency: 'EUR' },
    ].map((invoice) => [invoice.id, new InvoiceLedger(invoice)]),
  )

describe('Allocator', () => {
  it('distributes in the order given and books the rest as an overpayment of the last invoice', () => {
    const book = ledgers()
    const allocator = new Allocator(book, matchConfig())
    allocator.byReference(payment('35'), 'paymentReference', [
      { invoiceId: 'b', reference: 'B-1', via: 'text' },
      { invoiceId: 'a', reference: 'A-1', via: 'text' },
    ])
    expect(allocator.allocations.map((allocation) => [allocation.invoiceId, allocation.amount])).toEqual([
      ['b', '20'],
      ['a', '10'],
    ])
    expect(allocator.exceptions).toMatchObject([{ type: 'overpayment', amount: '5', invoiceIds: ['b', 'a'] }])
    expect(book.get('a')?.overpaid).toBe(toUnits('5'))
  })

  it('books pending money as pending and raises overpayments of it without touching amountOverpaid', () => {
    const book = ledgers()
    const allocator = new Allocator(book, matchConfig())
    allocator.byReference(payment('15', 'tentative'), 'paymentReference', [
      { invoiceId: 'a', reference: 'A-1', via: 'text' },
    ])
    expect(book.get('a')?.pending).toBe(toUnits('10'))
    expect(book.get('a')?.overpaid).toBe(0n)
    expect(allocator.exceptions).toMatchObject([{ type: 'overpayment', settled: false }])
  })

  it('refuses a set that is not closed', () => {
    const allocator = new Allocator(ledgers(), matchConfig())
    expect(() =>
      allocator.byReference(payment('1'), 'paymentReference', [
        { invoiceId: 'zz', reference: 'Z', via: 'text' },
      ]),
    ).toThrow(MatcherInputError)
  })

  it('caps a person’s matches at the transaction’s amount', () => {
    const allocator = new Allocator(ledgers(), matchConfig())
    allocator.manual(payment('12'), [
      { transactionId: 't', invoiceId: 'a', amount: '10' },
      { transactionId: 't', invoiceId: 'b', amount: '20' },
    ])
    expect(allocator.allocations.map((allocation) => [allocation.invoiceId, allocation.amount])).toEqual([
      ['a', '10'],
      ['b', '2'],
    ])
  })

  it('is certain of remittance fields and codes, less of free text in descriptions', () => {
    expect(referenceConfidence('paymentReference', 'text')).toBe(100)
    expect(referenceConfidence('description', 'rf')).toBe(100)
    expect(referenceConfidence('rawDescription', 'text')).toBe(90)
  })
})

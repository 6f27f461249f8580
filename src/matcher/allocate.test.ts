import { describe, expect, it } from 'vitest'
import { Allocator, MatcherInputError, type Described } from './allocate.js'
import type { Payment } from './payment.js'
import { matchConfig } from './config.js'
import { LedgerSet } from './ledger-set.js'
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
  new LedgerSet([
    { id: 'a', number: 'A-1', amount: '10', currency: 'EUR' },
    { id: 'b', number: 'B-1', amount: '20', currency: 'EUR' },
  ])

const engine = (): Described => ({
  origin: { rule: 'reference', field: 'paymentReference', madeBy: 'engine', confidence: 100 },
  reference: null,
  via: 'text',
  evidence: [],
})

describe('Allocator', () => {
  it('distributes in the order given and books the rest as an overpayment of the last invoice', () => {
    const book = ledgers()
    const allocator = new Allocator(book, matchConfig())
    allocator.distribute(payment('35'), toUnits('35'), [book.get('b')!, book.get('a')!], engine)
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
    allocator.distribute(payment('15', 'tentative'), toUnits('15'), [book.get('a')!], engine)
    expect(book.get('a')?.pending).toBe(toUnits('10'))
    expect(book.get('a')?.overpaid).toBe(0n)
    expect(allocator.exceptions).toMatchObject([{ type: 'overpayment', settled: false }])
  })

  it('refuses a set that is not closed', () => {
    const allocator = new Allocator(ledgers(), matchConfig())
    expect(() => allocator.ledger('zz', 't')).toThrow(MatcherInputError)
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
})

import { describe, expect, it } from 'vitest'
import { matchPayments } from './match-payments.js'
import type { MatchInvoice, MatchTransaction } from './types.js'

/** Issue 25 rule 2: a test transfer names an invoice but pays nothing of it. */
const invoice: MatchInvoice = {
  id: 'i1',
  number: 'INV-2025-00338',
  amount: '238.00',
  currency: 'EUR',
  customerName: 'Richter Logistik AG',
  issueDate: '2025-09-30',
}

const payment = (amount: string, extra: Partial<MatchTransaction> = {}): MatchTransaction => ({
  id: 't1',
  accountId: 'acc',
  amount,
  currency: 'EUR',
  status: 'posted',
  postedDate: '2025-10-14',
  paymentReference: 'TESTUEBERWEISUNG INV-2025-00338',
  counterpartyName: 'RICHTER LOGISTIK AG',
  ...extra,
})

describe('a token amount naming an invoice whole', () => {
  it('is a suggestion with its reason, not an application', () => {
    const result = matchPayments({ invoices: [invoice], transactions: [payment('0.01')] })
    expect(result.allocations).toEqual([])
    const [exception] = result.exceptions
    expect(exception?.invoiceIds).toEqual(['i1'])
    const codes = JSON.stringify(exception)
    expect(codes).toContain('conflict_token_amount')
  })

  it('is still applied when the amount is what the invoice has open', () => {
    const result = matchPayments({ invoices: [invoice], transactions: [payment('238.00')] })
    expect(result.allocations.map((a) => [a.invoiceId, a.amount])).toEqual([['i1', '238']])
  })
})

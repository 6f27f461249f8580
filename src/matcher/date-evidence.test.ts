import { describe, expect, it } from 'vitest'
import { matchConfig } from './config.js'
import { dayNumber, issuedAfterPayment } from './date-evidence.js'
import { matchPayments } from './match-payments.js'
import type { MatchInvoice, MatchTransaction } from './types.js'

const invoice: MatchInvoice = {
  id: 'a',
  number: 'INV-1001',
  amount: '100.00',
  currency: 'EUR',
  issueDate: '2024-03-25',
}
const tx = (fields: Partial<MatchTransaction> = {}): MatchTransaction => ({
  id: 't',
  accountId: 'acc',
  amount: '100.00',
  currency: 'EUR',
  status: 'posted',
  postedDate: '2024-03-19',
  paymentReference: 'INV-1001',
  ...fields,
})

describe('dayNumber', () => {
  it('reads the calendar day of a date or timestamp, null otherwise', () => {
    expect((dayNumber('2024-03-25') as number) - (dayNumber('2024-03-19T23:00:00Z') as number)).toBe(6)
    expect(dayNumber('soon')).toBeNull()
    expect(dayNumber(null)).toBeNull()
  })
})

describe('an invoice issued after the payment (issue 25 rule 7)', () => {
  it('is a conflict beyond the grace, none within it or without dates', () => {
    expect(issuedAfterPayment(invoice, tx(), 5)?.code).toBe('conflict_invoice_after_payment')
    expect(issuedAfterPayment(invoice, tx(), 6)).toBeNull()
    expect(issuedAfterPayment(invoice, tx({ postedDate: null }), 0)).toBeNull()
  })

  it('is suggested, never applied by default, and applied when the configured grace covers it', () => {
    const late = matchPayments({ invoices: [invoice], transactions: [tx()] })
    expect(late.allocations).toEqual([])
    expect(late.exceptions[0]?.type).toBe('suggested_match')
    const graced = matchPayments({
      invoices: [invoice],
      transactions: [tx()],
      config: matchConfig({ invoiceDateGraceDays: 10 }),
    })
    expect(graced.allocations.map((item) => item.invoiceId)).toEqual(['a'])
  })
})

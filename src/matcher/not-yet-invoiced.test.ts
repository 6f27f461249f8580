import { describe, expect, it } from 'vitest'
import { InvoiceIndex } from './invoice-index.js'
import { matchPayments } from './match-payments.js'
import { advanceWording, unknownInvoiceNumbers } from './not-yet-invoiced.js'
import type { MatchCustomer, MatchInvoice, MatchTransaction } from './types.js'

const customers: MatchCustomer[] = [
  { id: 'acme', name: 'Acme GmbH', bankAccounts: ['DE89370400440532013000'] },
]
const open: MatchInvoice = {
  id: 'a',
  number: 'INV-2024-0102',
  amount: '612.00',
  currency: 'EUR',
  customerId: 'acme',
}
const tx = (fields: Partial<MatchTransaction>): MatchTransaction => ({
  id: 't',
  accountId: 'acc',
  amount: '612.00',
  currency: 'EUR',
  status: 'posted',
  postedDate: '2024-03-20',
  counterpartyName: 'ACME GMBH',
  counterpartyAccountMasked: 'DE89 **** **** **** **30 00',
  ...fields,
})

describe('advanceWording', () => {
  it.each([
    'Anzahlung Auftrag 118',
    'Vorauszahlung',
    'acompte commande',
    'anticipo pedido',
    'DEPOSIT ORDER 7712',
    'prepayment',
    'down payment',
  ])('reads “%s” as an advance', (description) =>
    expect(advanceWording(tx({ description }))?.code).toBe('advance_payment'),
  )

  it.each(['LOCKBOX DEPOSIT 0423', 'MOBILE DEPOSIT', 'Abschlagsrechnung AR-17'])(
    'reads “%s” as none',
    (description) => expect(advanceWording(tx({ description }))).toBeNull(),
  )
})

describe('unknownInvoiceNumbers', () => {
  const index = new InvoiceIndex([open], customers)

  it('finds a number in the books’ printed form, or after a word for invoice, that names no invoice', () => {
    expect(unknownInvoiceNumbers(index, tx({ description: 'INV-2024-0109' }))).toEqual(['INV-2024-0109'])
    expect(unknownInvoiceNumbers(index, tx({ description: 'Rechnung Nr. 88123' }))).toEqual([
      'Rechnung Nr. 88123',
    ])
  })

  it('finds none for a known invoice or a number under another label', () => {
    expect(unknownInvoiceNumbers(index, tx({ description: 'INV-2024-0102' }))).toEqual([])
    expect(unknownInvoiceNumbers(index, tx({ description: 'Bestellung 88123' }))).toEqual([])
  })
})

describe('money for what is not an invoice yet (issue 25 rule 6)', () => {
  it('never applies a down payment to the verified payer’s only invoice of that amount: it waits', () => {
    const result = matchPayments({
      invoices: [open],
      customers,
      transactions: [tx({ description: 'Anzahlung Auftrag 118' })],
    })
    expect(result.allocations).toEqual([])
    expect(result.exceptions[0]).toMatchObject({ type: 'unmatched_payment', invoiceIds: [] })
    expect(result.exceptions[0]?.evidence.map((item) => item.code)).toContain('advance_payment')
  })

  it('lets a payment quoting an invoice not in the books wait, and applies it once the invoice arrives', () => {
    const payment = tx({ paymentReference: 'INV-2024-0109' })
    const before = matchPayments({ invoices: [open], customers, transactions: [payment] })
    expect(before.allocations).toEqual([])
    expect(before.exceptions[0]?.evidence.map((item) => item.code)).toContain('awaiting_invoice')
    const arrived: MatchInvoice = { ...open, id: 'b', number: 'INV-2024-0109', issueDate: '2024-03-18' }
    const after = matchPayments({ invoices: [open, arrived], customers, transactions: [payment] })
    expect(after.allocations.map((item) => item.invoiceId)).toEqual(['b'])
  })
})

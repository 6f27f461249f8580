import { describe, expect, it } from 'vitest'
import type { InvoiceRow } from '../store/index.js'
import { invoiceView } from './invoice-view.js'

const row: InvoiceRow = {
  id: 'inv_1',
  number: 'INV-1',
  normalized_number: 'INV 1',
  amount: '100.00',
  currency: 'EUR',
  customer_name: 'Acme',
  customer_aliases: ['ACME'],
  customer_keys: ['acme'],
  issue_date: '2026-01-05',
  due_date: null,
  entity_id: null,
  account_id: null,
  metadata: { po: '1' },
  customer_id: 'cus_1',
  payment_reference: 'RF18539007547034',
  match_keys: ['INV 1', 'INV1', '1', 'RF18539007547034'],
  keys_version: 1,
  discount_percent: null,
  discount_until: null,
  credited: '0',
  written_off: '0',
  voided_at: null,
  version: '3',
  created_at: new Date('2026-01-05T10:00:00Z'),
  updated_at: new Date('2026-01-06T10:00:00Z'),
}

describe('invoiceView', () => {
  it('shows an invoice matching has not looked at as open, nothing paid, the whole amount open', () => {
    expect(invoiceView(row)).toEqual({
      id: 'inv_1',
      number: 'INV-1',
      amount: '100.00',
      currency: 'EUR',
      customerName: 'Acme',
      customerAliases: ['ACME'],
      issueDate: '2026-01-05',
      dueDate: null,
      entityId: null,
      accountId: null,
      metadata: { po: '1' },
      customerId: 'cus_1',
      paymentReference: 'RF18539007547034',
      earlyPaymentDiscount: null,
      amountCredited: '0',
      status: 'open',
      amountPaid: '0',
      amountPending: '0',
      amountOpen: '100.00',
      amountOverpaid: '0',
      amountWrittenOff: '0',
      version: 3,
      voidedAt: null,
      createdAt: '2026-01-05T10:00:00.000Z',
      updatedAt: '2026-01-06T10:00:00.000Z',
    })
  })

  it('shows what matching derived', () => {
    const view = invoiceView(row, {
      status: 'partially_paid',
      amount_paid: '40',
      amount_pending: '10',
      amount_open: '60',
      amount_overpaid: '0',
      amount_written_off: '0',
    })
    expect(view).toMatchObject({
      status: 'partially_paid',
      amountPaid: '40',
      amountPending: '10',
      amountOpen: '60',
    })
  })

  it('shows a voided invoice as void, whatever matching derived, with nothing open when it derived nothing', () => {
    const voided = { ...row, voided_at: new Date('2026-02-01T00:00:00Z') }
    expect(invoiceView(voided)).toMatchObject({
      status: 'void',
      amountOpen: '0',
      voidedAt: '2026-02-01T00:00:00.000Z',
    })
    const derived = {
      status: 'paid',
      amount_paid: '100',
      amount_pending: '0',
      amount_open: '0',
      amount_overpaid: '0',
      amount_written_off: '0',
    }
    expect(invoiceView(voided, derived)).toMatchObject({ status: 'void', amountPaid: '100' })
  })
})

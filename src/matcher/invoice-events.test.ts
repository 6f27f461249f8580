import { describe, expect, it } from 'vitest'
import { invoiceEventType } from './invoice-events.js'

describe('invoiceEventType', () => {
  it('sends invoice.paid and invoice.overpaid on reaching those states', () => {
    expect(invoiceEventType({ status: 'open', amountPaid: '0' }, { status: 'paid', amountPaid: '10' })).toBe(
      'invoice.paid',
    )
    expect(
      invoiceEventType({ status: 'paid', amountPaid: '10' }, { status: 'overpaid', amountPaid: '10' }),
    ).toBe('invoice.overpaid')
  })

  it('sends invoice.partially_paid each time more settled money arrives', () => {
    expect(invoiceEventType(null, { status: 'partially_paid', amountPaid: '4' })).toBe(
      'invoice.partially_paid',
    )
    expect(
      invoiceEventType(
        { status: 'partially_paid', amountPaid: '4' },
        { status: 'partially_paid', amountPaid: '6' },
      ),
    ).toBe('invoice.partially_paid')
    expect(
      invoiceEventType(
        { status: 'partially_paid', amountPaid: '4.00' },
        { status: 'partially_paid', amountPaid: '4' },
      ),
    ).toBeNull()
  })

  it('sends invoice.reopened when settled money leaves a paid or partially paid invoice', () => {
    expect(invoiceEventType({ status: 'paid', amountPaid: '10' }, { status: 'open', amountPaid: '0' })).toBe(
      'invoice.reopened',
    )
    expect(
      invoiceEventType({ status: 'paid', amountPaid: '10' }, { status: 'partially_paid', amountPaid: '5' }),
    ).toBe('invoice.reopened')
    expect(
      invoiceEventType({ status: 'partially_paid', amountPaid: '5' }, { status: 'open', amountPaid: '0' }),
    ).toBe('invoice.reopened')
  })

  it('sends nothing for pending money, a new open invoice or a void one', () => {
    expect(invoiceEventType(null, { status: 'open', amountPaid: '0' })).toBeNull()
    expect(
      invoiceEventType({ status: 'open', amountPaid: '0' }, { status: 'void', amountPaid: '0' }),
    ).toBeNull()
  })
})

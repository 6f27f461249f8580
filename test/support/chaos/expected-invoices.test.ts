import { describe, expect, it } from 'vitest'
import { expectedInvoices } from './expected-invoices.js'

const invoice = { id: 'i1', number: 'CHX-000001', amount: '100.00', currency: 'USD' }
const paying = (id: string, amount: string, more: Record<string, unknown> = {}) => ({
  id,
  amount,
  currency: 'USD',
  status: 'posted',
  paymentReference: 'CHX-000001',
  ...more,
})

describe('the expected amountPaid of a chaos invoice', () => {
  it('sums the posted positive payments carrying its number, capped at its amount', () => {
    const parts = expectedInvoices([invoice], [paying('t1', '30.00'), paying('t2', '45.50')])
    expect(parts.amountPaid.get('i1')).toBe('75.5')
    const over = expectedInvoices([invoice], [paying('t1', '80.00'), paying('t2', '45.50')])
    expect(over.amountPaid.get('i1')).toBe('100')
  })

  it('leaves out pending money, outflows, another currency and other references', () => {
    const result = expectedInvoices(
      [invoice],
      [
        paying('t1', '10.00', { status: 'pending' }),
        paying('t2', '-10.00'),
        paying('t3', '10.00', { currency: 'EUR' }),
        paying('t4', '10.00', { paymentReference: 'INV-1' }),
      ],
    )
    expect(result.amountPaid.get('i1')).toBe('0')
    expect(result.unsound).toEqual([])
  })

  it('flags a chaos number outside the payment reference, which would break the premise', () => {
    const result = expectedInvoices(
      [invoice],
      [paying('t1', '10.00', { paymentReference: null, description: 'CHX-000001' })],
    )
    expect(result.unsound).toEqual(['transaction t1 names a chaos invoice outside its payment reference'])
  })
})

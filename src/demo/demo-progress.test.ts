import { describe, expect, it } from 'vitest'
import type { DemoPayment } from './demo-plan.js'
import { shortfallOf } from './demo-progress.js'

const payment = (expect: DemoPayment['expect']): DemoPayment => ({
  key: 'P01',
  label: 'pays INV-1 in full (exact)',
  amount: '100.00',
  currency: 'USD',
  counterpartyName: 'Acme',
  rail: 'ach',
  pendingFirst: false,
  invoiceIds: ['inv_1'],
  paymentReference: 'INV-1',
  customerReference: null,
  description: null,
  expect,
})

const mirrored = (status: string, allocated: string) => ({ id: 't1', status, amount: '100.00', allocated })

describe('a demo payment is reconciled', () => {
  const matched = payment({ allocated: '100.00', exception: null })
  const overpaid = payment({ allocated: '80.00', exception: 'overpayment' })

  it('when mirrored, posted, allocated as expected and raising no exception', () => {
    expect(shortfallOf(matched, mirrored('posted', '100'), [])).toBeNull()
  })

  it('not before it is mirrored, nor while it is mirrored pending', () => {
    expect(shortfallOf(matched, undefined, [])).toBe('not mirrored yet')
    expect(shortfallOf(matched, mirrored('pending', '0'), [])).toBe('mirrored as pending, not posted yet')
  })

  it('not while its settled allocations fall short of what it should pay', () => {
    expect(shortfallOf(matched, mirrored('posted', '40.00'), [])).toBe(
      '40.00 of it allocated, 100.00 expected',
    )
  })

  it('only with the exception it should raise, and no other', () => {
    expect(shortfallOf(overpaid, mirrored('posted', '80'), [])).toBe('no open overpayment exception yet')
    expect(shortfallOf(overpaid, mirrored('posted', '80'), ['overpayment'])).toBeNull()
    expect(shortfallOf(matched, mirrored('posted', '100'), ['unmatched_payment'])).toBe(
      'unexpected open exception unmatched_payment',
    )
  })
})

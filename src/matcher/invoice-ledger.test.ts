import { describe, expect, it } from 'vitest'
import { InvoiceLedger } from './invoice-ledger.js'
import { centsOf, toUnits } from './money.js'

const ledger = () => new InvoiceLedger({ id: 'i', number: 'N-1', amount: '100.00', currency: 'EUR' })

describe('InvoiceLedger', () => {
  it('derives the status from settled money only', () => {
    const open = ledger()
    open.pending = toUnits('100')
    expect(open.state()).toMatchObject({ status: 'open', amountPending: '100', amountOpen: '100' })
    open.paid = toUnits('30')
    expect(open.state()).toMatchObject({ status: 'partially_paid', amountPaid: '30', amountOpen: '70' })
  })

  it('lets pending money hold only what settled money left open', () => {
    const held = ledger()
    held.paid = toUnits('60')
    held.pending = toUnits('30')
    expect(held.openForSettled()).toBe(toUnits('40'))
    expect(held.openForTentative()).toBe(toUnits('10'))
  })

  it('counts a write-off towards paid and reports an overpayment as overpaid', () => {
    const written = ledger()
    written.paid = toUnits('99')
    written.writtenOff = toUnits('1')
    expect(written.state()).toMatchObject({ status: 'paid', amountOpen: '0', amountWrittenOff: '1' })
    written.overpaid = toUnits('5')
    expect(written.status()).toBe('overpaid')
  })

  it('reports a void invoice as void', () => {
    expect(
      new InvoiceLedger({ id: 'v', number: 'N', amount: '1', currency: 'EUR', void: true }).status(),
    ).toBe('void')
  })

  it('tells whether what is open is exactly an amount, in cents or not', () => {
    const open = ledger()
    expect(open.openIs(toUnits('100'), centsOf(toUnits('100')), false)).toBe(true)
    expect(open.openIs(toUnits('99.99'), centsOf(toUnits('99.99')), true)).toBe(false)
    expect(open.openIs(toUnits('100'), -1, false)).toBe(true)
    open.pending = toUnits('40')
    expect(open.openIs(toUnits('60'), centsOf(toUnits('60')), true)).toBe(true)
    expect(open.openIs(toUnits('100'), centsOf(toUnits('100')), false)).toBe(true)
  })
})

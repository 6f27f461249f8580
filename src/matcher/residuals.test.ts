import { describe, expect, it } from 'vitest'
import { matchConfig } from './config.js'
import { formatUnits } from './money.js'
import { matchPayments } from './match-payments.js'
import { statedFee } from './residuals.js'
import type { MatchInvoice, MatchTransaction } from './types.js'

const tx = (fields: Partial<MatchTransaction>): MatchTransaction => ({
  id: 't',
  accountId: 'acc',
  amount: '100',
  currency: 'EUR',
  status: 'posted',
  postedDate: '2026-03-20',
  // A recognised payer: issue 25 rule 2 weighs an amount that does not fit with who paid.
  counterpartyName: 'Acme Ltd',
  ...fields,
})

function run(invoice: MatchInvoice, payment: Partial<MatchTransaction>, config = matchConfig()) {
  const result = matchPayments({ invoices: [invoice], transactions: [tx(payment)], config })
  return { allocations: result.allocations, state: result.invoices[0]! }
}

describe('statedFee', () => {
  it.each([
    ['INV-1 INV-2 fees 4.35', '4.35', 'bank_fee'],
    ['Gebühren: EUR 12,50 RE-4711', '12.5', 'bank_fee'],
    ['frais 1.234,56', '1234.56', 'bank_fee'],
    ['comisión 3', '3', 'bank_fee'],
    ['commissione -2,10', '2.1', 'bank_fee'],
    ['kosten 7', '7', 'bank_fee'],
    ['STRIPE PAYOUT po_1 fee 8.70', '8.7', 'psp_fee'],
  ])('reads “%s” as a fee of %s (%s)', (description, amount, reason) => {
    const fee = statedFee(tx({ description }))
    expect(fee && { amount: formatUnits(fee.units), reason: fee.reason }).toEqual({
      amount,
      reason,
    })
  })

  it.each(['INV-1 coffee 5', 'fees', 'INV-1 late fee'])('reads no fee in “%s”', (description) => {
    expect(statedFee(tx({ description }))).toBeNull()
  })
})

describe('residuals', () => {
  const invoice: MatchInvoice = {
    id: 'a',
    number: 'INV-2026-0001',
    amount: '1000.00',
    currency: 'EUR',
    customerName: 'Acme Ltd',
  }

  it('writes a rest within the currency’s tolerance off as bank_fee, to the reason’s account', () => {
    const config = matchConfig({
      feeToleranceAbsolute: '1',
      feeToleranceByCurrency: { EUR: { absolute: '20' } },
      writeOffAccounts: { bank_fee: '6820' },
    })
    const { allocations, state } = run(
      invoice,
      { amount: '985.00', paymentReference: 'INV-2026-0001' },
      config,
    )
    expect(allocations[0]).toMatchObject({
      writeOff: '15',
      writeOffReason: 'bank_fee',
      writeOffAccount: '6820',
    })
    expect(state).toMatchObject({ status: 'paid', amountOpen: '0', amountWrittenOff: '15' })
    const usd = run(
      { ...invoice, currency: 'USD' },
      { amount: '985.00', currency: 'USD', paymentReference: 'INV-2026-0001' },
      config,
    )
    expect(usd.allocations[0]).toMatchObject({ writeOff: '0', writeOffReason: null, writeOffAccount: null })
    expect(usd.state).toMatchObject({ status: 'partially_paid', amountOpen: '15' })
  })

  it('closes an invoice paid net of its discount by the date, to the cent, and not after', () => {
    const terms: MatchInvoice = {
      ...invoice,
      amount: '999.99',
      earlyPaymentDiscount: { percent: '2', until: '2026-03-20' },
    }
    const inTime = run(terms, { amount: '980.00', paymentReference: 'INV-2026-0001' })
    expect(inTime.allocations[0]).toMatchObject({ writeOff: '19.99', writeOffReason: 'discount' })
    expect(inTime.state.status).toBe('paid')
    expect(run(terms, { amount: '980.02', paymentReference: 'INV-2026-0001' }).state.status).toBe(
      'partially_paid',
    )
    const late = run(terms, { amount: '980.00', paymentReference: 'INV-2026-0001', postedDate: '2026-03-21' })
    expect(late.allocations[0]).toMatchObject({ writeOff: '0', writeOffReason: null })
  })

  it('nets credit notes: open less them, booked as credit_note with the first settled money, not with pending', () => {
    const credited: MatchInvoice = { ...invoice, credits: '200' }
    expect(run(credited, { amount: '1', paymentReference: 'nothing' }).state).toMatchObject({
      status: 'open',
      amountOpen: '800',
    })
    const pending = run(credited, { amount: '800.00', paymentReference: 'INV-2026-0001', status: 'pending' })
    expect(pending.allocations[0]).toMatchObject({ settled: false, writeOff: '0' })
    const partial = run(credited, { amount: '300.00', paymentReference: 'INV-2026-0001' })
    expect(partial.allocations[0]).toMatchObject({
      amount: '300',
      writeOff: '200',
      writeOffReason: 'credit_note',
    })
    expect(partial.state).toMatchObject({
      status: 'partially_paid',
      amountOpen: '500',
      amountWrittenOff: '200',
    })
    const full = run(credited, { amount: '800.00', paymentReference: 'INV-2026-0001' })
    expect(full.state).toMatchObject({ status: 'paid', amountOpen: '0' })
  })

  it('settles a set net of the fee it states on the last invoice; a stated fee that does not add up is suggested', () => {
    const invoices: MatchInvoice[] = [
      { id: 'a', number: 'INV-2026-0001', amount: '100.00', currency: 'EUR' },
      { id: 'b', number: 'INV-2026-0002', amount: '200.00', currency: 'EUR' },
    ]
    const exact = matchPayments({
      invoices,
      transactions: [tx({ amount: '295.50', description: 'INV-2026-0001 INV-2026-0002 fees 4.50' })],
    })
    expect(
      exact.allocations.map((item) => [item.invoiceId, item.amount, item.writeOff, item.writeOffReason]),
    ).toEqual([
      ['a', '100', '0', null],
      ['b', '195.5', '4.5', 'bank_fee'],
    ])
    const wrong = matchPayments({
      invoices,
      transactions: [tx({ amount: '295.00', description: 'INV-2026-0001 INV-2026-0002 fees 4.50' })],
      config: matchConfig({ feeToleranceAbsolute: '30' }),
    })
    expect(wrong.allocations).toEqual([])
    expect(wrong.exceptions[0]).toMatchObject({ type: 'suggested_match', invoiceIds: ['a', 'b'] })
    expect(wrong.exceptions[0]!.evidence.map((item) => item.code)).toContain('fee_stated_mismatch')
  })
})

import { describe, expect, it } from 'vitest'
import { matchPayments, type MatchPaymentsInput } from './match-payments.js'
import { tx } from '../../test/support/match-case-table.js'
import type { MatchInvoice } from './types.js'

const inv = (id: string, number: string, amount: string): MatchInvoice => ({
  id,
  number,
  amount,
  currency: 'EUR',
  customerName: 'Acme Ltd',
})

const invoices = [inv('a', 'INV-1001', '100.00'), inv('b', 'INV-1002', '50.00')]
const paysBoth = tx('in', '150.00', {
  paymentReference: 'INV-1001 INV-1002',
  customerReference: 'E2E-ACME-77',
})
const returning = (amount: string, description: string) =>
  tx('out', amount, { postedDate: '2024-03-10', description })

/** Allocations, states and exceptions in short lines. */
function run(input: Partial<MatchPaymentsInput> & Pick<MatchPaymentsInput, 'transactions'>) {
  const result = matchPayments({ invoices, ...input })
  return {
    allocations: result.allocations.map((item) => `${item.transactionId}>${item.invoiceId} ${item.amount}`),
    states: result.invoices.map((state) => `${state.invoiceId} ${state.status} open ${state.amountOpen}`),
    exceptions: result.exceptions.map((item) => `${item.key} ${item.amount}`),
    codes: result.exceptions.flatMap((item) => item.evidence.map((evidence) => evidence.code)),
  }
}

describe('partial returns', () => {
  it('take what went back off the invoice the return names, which opens again by that much', () => {
    const result = run({ transactions: [paysBoth, returning('-30.00', 'RETURN MD06 INV-1002')] })
    expect(result).toMatchObject({
      allocations: ['in>a 100', 'in>b 20'],
      states: ['a paid open 0', 'b partially_paid open 30'],
      exceptions: ['payment_returned:out:in 30'],
    })
    expect(result.codes).toEqual(expect.arrayContaining(['return_names_invoice', 'return_partial']))
  })

  it('take a second and a last partial chargeback of the same payment off it too, never more than it paid', () => {
    const part = (id: string, amount: string, day: string) =>
      tx(id, amount, { postedDate: `2024-03-${day}`, description: 'CHARGEBACK INV-1002' })
    const twoParts = run({
      transactions: [paysBoth, part('out1', '-30.00', '10'), part('out2', '-15.00', '11')],
    })
    expect(twoParts).toMatchObject({
      allocations: ['in>a 100', 'in>b 5'],
      states: ['a paid open 0', 'b partially_paid open 45'],
      exceptions: ['payment_returned:out1:in 30', 'payment_returned:out2:in 15'],
    })
    // The parts may add up to the whole payment; a part beyond what it paid the invoice reverses nothing.
    const rest = run({
      transactions: [
        paysBoth,
        part('out1', '-30.00', '10'),
        part('out2', '-15.00', '11'),
        part('out3', '-10.00', '12'),
      ],
    })
    expect(rest.allocations).toEqual(['in>a 100', 'in>b 5'])
    expect(rest.exceptions).toEqual([
      'payment_returned:out1:in 30',
      'payment_returned:out2:in 15',
      'ambiguous_reference:out3:return-of-in 10',
    ])
  })

  it("reopen a one-invoice payment's invoice when the return quotes the payment", () => {
    const single = tx('in', '100.00', { paymentReference: 'INV-1001', bankReference: 'ch_3PaR7c2Lm9' })
    expect(run({ transactions: [single, returning('-75.00', 'CHARGEBACK ch_3PaR7c2Lm9')] })).toMatchObject({
      allocations: ['in>a 25'],
      states: ['a partially_paid open 75', 'b open open 50'],
      exceptions: ['payment_returned:out:in 75'],
    })
  })

  it('do not guess: a return naming none of several invoices reverses nothing and asks a person', () => {
    expect(run({ transactions: [paysBoth, returning('-30.00', 'Rueckbuchung E2E-ACME-77')] })).toMatchObject({
      allocations: ['in>a 100', 'in>b 50'],
      states: ['a paid open 0', 'b paid open 0'],
      exceptions: ['ambiguous_reference:out:return-of-in 30'],
    })
  })

  it('reverse nothing when the return is more than the payment paid the invoice it names', () => {
    const result = run({ transactions: [paysBoth, returning('-70.00', 'RETURN AM04 INV-1002')] })
    expect(result).toMatchObject({
      allocations: ['in>a 100', 'in>b 50'],
      exceptions: ['ambiguous_reference:out:return-of-in 70'],
    })
    expect(result.codes).toContain('return_exceeds_allocation')
  })

  it('need a return signal: an outflow for less naming the invoice is no return', () => {
    expect(run({ transactions: [paysBoth, returning('-30.00', 'INV-1002 office chairs')] })).toMatchObject({
      allocations: ['in>a 100', 'in>b 50'],
      exceptions: [],
    })
  })

  it('are undone when a person rejects them, and give the same result in any order', () => {
    const transactions = [paysBoth, returning('-30.00', 'RETURN MD06 INV-1002')]
    expect(
      run({ transactions, rejectedSuggestions: [{ transactionId: 'out', invoiceIds: ['in'] }] }),
    ).toMatchObject({ allocations: ['in>a 100', 'in>b 50'], exceptions: [] })
    expect(run({ transactions: [...transactions].reverse() })).toEqual(run({ transactions }))
  })
})

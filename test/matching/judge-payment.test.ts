import { describe, expect, it } from 'vitest'
import { InvoiceIndex, matchConfig, matchPayments, type MatchInvoice } from '../../src/matcher/index.js'
import { bankLine } from '../support/bank-lines.js'
import { judgePayment } from '../support/judge-payment.js'
import type { RealisticExpect } from '../support/realistic-book.js'

const invoices: MatchInvoice[] = [
  {
    id: 'i1',
    number: 'INV-2026-00101',
    amount: '500.00',
    currency: 'EUR',
    customerId: 'c1',
    issueDate: '2026-01-02',
  },
  {
    id: 'i2',
    number: 'INV-2026-00102',
    amount: '200.00',
    currency: 'EUR',
    customerId: 'c1',
    issueDate: '2026-01-02',
  },
]
const index = new InvoiceIndex(invoices, [{ id: 'c1', name: 'Acme GmbH' }])
const run = (amount: string, reference: string, prior = false) =>
  matchPayments({
    index,
    invoices,
    config: matchConfig(),
    transactions: [
      ...(prior
        ? [bankLine('in', '500.00', 'EUR', '2026-02-01', { paymentReference: 'INV-2026-00101' })]
        : []),
      bankLine('t', amount, 'EUR', '2026-02-10', {
        paymentReference: reference,
        counterpartyName: 'ACME GMBH',
      }),
    ],
  })
const full = (id: string) => invoices.find((invoice) => invoice.id === id)?.amount.toString()
const expectThat = (
  outcome: RealisticExpect['outcome'],
  invoiceIds: string[],
  more = {},
): RealisticExpect => ({
  outcome,
  invoiceIds,
  ...more,
})

describe('judgePayment: every automatic action is right or wrong', () => {
  it('counts an application right only with the case’s invoices and amounts', () => {
    const result = run('500.00', 'INV-2026-00101')
    expect(judgePayment(result, 't', expectThat('applied', ['i1']), full)).toMatchObject({
      appliedRight: true,
      wrong: [],
    })
    expect(judgePayment(result, 't', expectThat('applied', ['i2']), full).wrong).toEqual([
      { kind: 'application', detail: 'applied to i1, not i2' },
    ])
    expect(
      judgePayment(result, 't', expectThat('applied', ['i1'], { allocations: { i1: '250.00' } }), full).wrong,
    ).toEqual([{ kind: 'amount', detail: 'i1: allocated 500, not 250.00' }])
  })

  it('counts an application as wrong where the case says a person decides', () => {
    const judged = judgePayment(run('500.00', 'INV-2026-00101'), 't', expectThat('suggested', ['i1']), full)
    expect(judged.wrong.map((item) => item.kind)).toEqual(['application'])
    expect(judged.appliedRight).toBe(false)
  })

  it('counts a return the case does not call for as wrong, and the one it names as right', () => {
    const result = run('-500.00', 'RUECKLASTSCHRIFT AC04 INV-2026-00101', true)
    const returned = result.returns.map((item) => item.inflowTransactionId)
    expect(returned).toEqual(['in'])
    expect(judgePayment(result, 't', expectThat('none', []), full).wrong).toEqual([
      { kind: 'return', detail: 'returned in; the case says none' },
    ])
    expect(
      judgePayment(result, 't', expectThat('returned', ['i1'], { returns: { inflowId: 'in' } }), full),
    ).toMatchObject({ returnedRight: true, wrong: [] })
  })

  it('counts nothing done when the engine proposes no invoice', () => {
    const judged = judgePayment(run('42.00', 'DANKE'), 't', expectThat('unmatched', []), full)
    expect(judged).toMatchObject({ nothingDone: true, wrong: [] })
  })
})

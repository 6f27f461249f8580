import { readFile } from 'node:fs/promises'
import { Decimal } from 'decimal.js'
import { describe, expect, it } from 'vitest'
import { parseInvoiceCsv } from '../invoices/index.js'
import { isValidRfReference, matchPayments } from '../matcher/index.js'
import { planDemoStory, type DemoPayment } from './demo-plan.js'
import { DEMO_INVOICES_FILE } from './load-demo-invoices.js'
import { creditorReference } from './reference-noise.js'

async function fixtureInvoices() {
  const parsed = await parseInvoiceCsv(await readFile(DEMO_INVOICES_FILE))
  if (!parsed.ok) throw new Error('the demo fixture does not parse')
  return parsed.invoices
}

/** The payment as the sandbox's control API records it (it fills a missing description in). */
function asTransaction(payment: DemoPayment) {
  const description = payment.description ?? `Payment from ${payment.counterpartyName}`
  return {
    id: payment.key,
    accountId: 'account',
    amount: payment.amount,
    currency: payment.currency,
    status: 'posted' as const,
    postedDate: '2026-11-20',
    paymentReference: payment.paymentReference,
    customerReference: payment.customerReference,
    description,
    rawDescription: description.toUpperCase(),
    counterpartyName: payment.counterpartyName,
  }
}

describe('the demo story', () => {
  it('is the same story for the same seed and another one for another seed', async () => {
    const invoices = await fixtureInvoices()
    expect(planDemoStory(invoices, 7)).toEqual(planDemoStory(invoices, 7))
    expect(planDemoStory(invoices, 7).steps.map((s) => s.payment.key)).not.toEqual(
      planDemoStory(invoices, 8).steps.map((s) => s.payment.key + s.payment.label),
    )
  })

  it('reports every payment once and settles every pending one after it was reported', async () => {
    const plan = planDemoStory(await fixtureInvoices())
    const pays = plan.steps.filter((s) => s.kind === 'pay').map((s) => s.payment.key)
    expect(new Set(pays).size).toBe(plan.payments.length)
    expect(pays).toHaveLength(plan.payments.length)
    for (const payment of plan.payments.filter((p) => p.pendingFirst)) {
      const paid = plan.steps.findIndex((s) => s.kind === 'pay' && s.payment === payment)
      const settled = plan.steps.findIndex((s) => s.kind === 'settle' && s.payment === payment)
      expect(settled).toBeGreaterThan(paid)
    }
    expect(plan.payments.filter((p) => p.pendingFirst).length).toBeGreaterThanOrEqual(5)
  })

  it('ends in the outcome it expects under the matching rules, for several seeds', async () => {
    const invoices = await fixtureInvoices()
    for (const seed of [42, 1, 2026]) {
      const plan = planDemoStory(invoices, seed)
      const result = matchPayments({
        invoices: invoices.map((i) => ({ ...i, amount: i.amount })),
        transactions: plan.payments.map(asTransaction),
      })
      for (const payment of plan.payments) {
        const allocated = result.allocations
          .filter((a) => a.transactionId === payment.key)
          .reduce((sum, a) => sum.plus(a.amount), new Decimal(0))
        const raised = result.exceptions.filter((e) => e.transactionId === payment.key).map((e) => e.type)
        expect({ key: payment.key, label: payment.label, allocated: allocated.toFixed(2), raised }).toEqual({
          key: payment.key,
          label: payment.label,
          allocated: new Decimal(payment.expect.allocated).toFixed(2),
          raised: payment.expect.exception ? [payment.expect.exception] : [],
        })
      }
      const statuses = Object.fromEntries(result.invoices.map((s) => [s.invoiceId, s.status]))
      expect(statuses).toEqual(plan.invoiceStatuses)
    }
  })

  it('has the shape the summary promises: every kind of payment of the issue', async () => {
    const plan = planDemoStory(await fixtureInvoices())
    const exceptions = plan.payments.map((p) => p.expect.exception).filter((e) => e !== null)
    expect(exceptions.sort()).toEqual([
      'currency_mismatch',
      'overpayment',
      'suggested_match',
      'unmatched_payment',
    ])
    const counts: Record<string, number> = {}
    for (const status of Object.values(plan.invoiceStatuses)) counts[status] = (counts[status] ?? 0) + 1
    expect(counts).toEqual({ paid: 51, open: 7, overpaid: 1, partially_paid: 1 })
    expect(plan.payments).toHaveLength(56)
  })
})

describe('creditorReference', () => {
  it('makes ISO 11649 references with valid check digits', () => {
    expect(creditorReference('539007547034')).toBe('RF18539007547034')
    const reference = creditorReference('INV20260007')
    expect(isValidRfReference(reference.slice(2, 4), reference.slice(4))).toBe(true)
  })
})

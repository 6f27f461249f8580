import { describe, expect, it } from 'vitest'
import { matchConfig } from './config.js'
import { matchPayments } from './match-payments.js'
import type { MatchCustomer, MatchInvoice, MatchTransaction } from './types.js'

const customers: MatchCustomer[] = [
  { id: 'summit', name: 'Summit Medical Corp.', bankAccounts: [] },
  { id: 'other', name: 'Prairie Holding Inc.', bankAccounts: [] },
]
const invoice = (id: string, number: string, amount: string, customerId = 'summit'): MatchInvoice => ({
  id,
  number,
  amount,
  currency: 'USD',
  customerId,
  issueDate: '2026-01-10',
})
const invoices = [
  invoice('a', '100613', '6434.33'),
  invoice('b', '100039', '1082.90'),
  invoice('c', '100055', '238.00'),
  invoice('x', '100077', '238.00', 'other'),
]
const ctx = (amount: string, lines: string): MatchTransaction => ({
  id: 't',
  accountId: 'acc_usd',
  amount,
  currency: 'USD',
  status: 'posted',
  postedDate: '2026-03-30',
  counterpartyName: 'SUMMIT MEDICAL C',
  paymentReference: `ST*820*0001~BPR*C*${amount}*C*ACH*CTX~TRN*1*0000412399~N1*PR*SUMMIT MEDICAL CORP.~ENT*1~${lines}SE*9*0001~`,
})
const ADJUSTED = 'RMR*IV*100613*PI*6334.33*6434.33~ADX*-100.00*01~RMR*IV*100039*PI*1082.90*1082.90~'
const run = (transaction: MatchTransaction, config = matchConfig({})) =>
  matchPayments({ invoices, customers, transactions: [transaction], config })

describe('stated remittance (rule 12)', () => {
  it('applies what each RMR line states and leaves the stated deduction open, not written off', () => {
    const result = run(ctx('7417.23', ADJUSTED))
    expect(result.allocations.map((item) => [item.invoiceId, item.amount, item.writeOff])).toEqual([
      ['a', '6334.33', '0'],
      ['b', '1082.9', '0'],
    ])
    expect(result.exceptions).toEqual([])
    expect(result.invoices.find((state) => state.invoiceId === 'a')).toMatchObject({
      status: 'partially_paid',
    })
    expect(result.allocations[0]?.evidence.map((item) => item.code)).toEqual([
      'remittance_stated',
      'remittance_sum',
      'remittance_adjustment',
    ])
  })

  it('keeps the deduction open even where the fee tolerance would have written it off', () => {
    const lines = 'RMR*IV*100613*PI*6429.33*6434.33~ADX*-5.00*04~RMR*IV*100039*PI*1082.90*1082.90~'
    const config = matchConfig({ feeToleranceAbsolute: '10.00' })
    const result = run(ctx('7512.23', lines), config)
    expect(result.allocations.map((item) => [item.invoiceId, item.writeOff])).toEqual([
      ['a', '0'],
      ['b', '0'],
    ])
  })

  it.each([
    ['the paid amounts do not add up to the payment', ctx('7367.23', ADJUSTED)],
    [
      'a line names another customer’s invoice',
      ctx('6572.33', 'RMR*IV*100613*PI*6334.33*6434.33~ADX*-100.00*01~RMR*IV*100077*PI*238.00*238.00~'),
    ],
    [
      'a short line states no reason',
      ctx('7417.23', 'RMR*IV*100613*PI*6334.33*6434.33~RMR*IV*100039*PI*1082.90*1082.90~'),
    ],
    [
      'the stated invoice total is not the invoice’s amount',
      ctx('7417.23', 'RMR*IV*100613*PI*6334.33*6434.30~ADX*-99.97*01~RMR*IV*100039*PI*1082.90*1082.90~'),
    ],
    ['a line pays more than is open', ctx('7695.23', `${ADJUSTED}RMR*IV*100055*PI*278.00*238.00~`)],
  ])('applies nothing when %s', (_why, transaction) => {
    const result = run(transaction)
    expect(result.allocations).toEqual([])
    expect(result.exceptions[0]?.type).toBe('suggested_match')
  })
})

describe('a remittance that contradicts itself (rule 12’s guard for the other rules)', () => {
  const codes = (result: ReturnType<typeof run>) =>
    result.exceptions.flatMap((item) => item.evidence ?? []).map((item) => item.code)

  it.each([
    [
      'a line pays more than the total it states (money moved between invoices)',
      ctx('7517.23', 'RMR*IV*100613*PI*6334.33*6434.33~ADX*-100.00*01~RMR*IV*100039*PI*1182.90*1082.90~'),
    ],
    [
      'the same invoice is listed twice',
      ctx('12751.56', `RMR*IV*100613*PI*6334.33*6434.33~ADX*-100.00*01~${ADJUSTED}`),
    ],
    [
      'a line pays less than it states without a reason',
      ctx('7417.23', 'RMR*IV*100613*PI*6334.33*6434.33~RMR*IV*100039*PI*1082.90*1082.90~'),
    ],
    [
      'a line pays more than the invoice has open',
      ctx('7555.23', 'RMR*IV*100613*PI*6434.33*6434.33~RMR*IV*100039*PI*1120.90~'),
    ],
  ])('suggests, although the amounts add up to what the invoices have open, when %s', (_why, transaction) => {
    const result = run(transaction)
    expect(result.allocations).toEqual([])
    expect(result.exceptions[0]?.type).toBe('suggested_match')
    expect(codes(result)).toContain('conflict_remittance')
  })

  it('still applies a clean remittance whose lines pay what each invoice has open', () => {
    const result = run(ctx('7517.23', 'RMR*IV*100613*PI*6434.33*6434.33~RMR*IV*100039*PI*1082.90*1082.90~'))
    expect(result.allocations.map((item) => [item.invoiceId, item.amount])).toEqual([
      ['a', '6434.33'],
      ['b', '1082.9'],
    ])
  })
})

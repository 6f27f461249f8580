import { expect } from 'vitest'
import {
  I1001,
  I1002,
  KNOWN_PAYER,
  inv,
  tx,
  runCases,
  type Case,
} from '../../test/support/match-case-table.js'

const amountCases: Case[] = [
  {
    name: 'an exact amount pays the invoice',
    invoices: [I1001],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001' })],
    states: { i1: 'paid 100' },
    exceptions: [],
  },
  {
    name: 'less than the amount leaves it partially paid with the rest open',
    invoices: [I1001],
    transactions: [tx('t1', '40.00', { paymentReference: 'INV-1001' })],
    states: { i1: 'partially_paid 40' },
    check: (result) => expect(result.invoices[0]?.amountOpen).toBe('60'),
  },
  {
    name: 'partial payments accumulate to paid',
    invoices: [I1001],
    transactions: [
      tx('t1', '40.00', { paymentReference: 'INV-1001', postedDate: '2024-03-01' }),
      tx('t2', '60.00', { paymentReference: 'INV-1001', postedDate: '2024-03-02' }),
    ],
    allocations: ['t1>i1 40', 't2>i1 60'],
    states: { i1: 'paid 100' },
  },
  {
    name: 'the partial payment that passes the amount overpays by the surplus only',
    invoices: [I1001],
    transactions: [
      tx('t1', '40.00', { paymentReference: 'INV-1001', ...KNOWN_PAYER, postedDate: '2024-03-01' }),
      tx('t2', '40.00', { paymentReference: 'INV-1001', ...KNOWN_PAYER, postedDate: '2024-03-02' }),
      tx('t3', '40.00', { paymentReference: 'INV-1001', ...KNOWN_PAYER, postedDate: '2024-03-03' }),
    ],
    allocations: ['t1>i1 40', 't2>i1 40', 't3>i1 20'],
    states: { i1: 'overpaid 100 over 20' },
    exceptions: ['overpayment t3 [i1] 20'],
  },
  {
    name: 'more than the amount overpays: amountPaid is the amount, the surplus an exception',
    invoices: [I1001],
    transactions: [tx('t1', '130.00', { paymentReference: 'INV-1001', ...KNOWN_PAYER })],
    allocations: ['t1>i1 100'],
    states: { i1: 'overpaid 100 over 30' },
    exceptions: ['overpayment t1 [i1] 30'],
  },
  {
    name: 'paying an already paid invoice again is an overpayment of the whole amount',
    invoices: [I1001],
    transactions: [
      tx('t1', '100.00', { paymentReference: 'INV-1001', ...KNOWN_PAYER, postedDate: '2024-03-01' }),
      tx('t2', '100.00', { paymentReference: 'INV-1001', ...KNOWN_PAYER, postedDate: '2024-03-05' }),
    ],
    allocations: ['t1>i1 100'],
    states: { i1: 'overpaid 100 over 100' },
    exceptions: ['overpayment t2 [i1] 100'],
  },
  {
    name: 'a multi-invoice payment fills each in the order named and the rest is an overpayment',
    invoices: [I1001, I1002],
    transactions: [tx('t1', '170.00', { paymentReference: 'INV-1002, INV-1001', ...KNOWN_PAYER })],
    allocations: ['t1>i2 50', 't1>i1 100'],
    states: { i1: 'overpaid 100 over 20', i2: 'paid 50' },
    exceptions: ['overpayment t1 [i2,i1] 20'],
  },
  {
    name: 'a short multi-invoice payment is a suggestion with the proposed split, never split in order (issue 25 rule 4)',
    invoices: [I1001, I1002],
    transactions: [tx('t1', '120.00', { paymentReference: 'INV-1001 INV-1002', ...KNOWN_PAYER })],
    allocations: [],
    exceptions: ['suggested_match t1 [i1,i2] 120'],
    states: { i1: 'open 0', i2: 'open 0' },
    check: (result) => {
      const split = result.exceptions[0]?.evidence.find((item) => item.code === 'short_payment_split')
      expect(split?.text).toContain('proposed split: INV-1001 100, INV-1002 20')
    },
  },
  {
    name: 'a multi-invoice payment skips an invoice already paid',
    invoices: [I1001, I1002],
    transactions: [
      tx('t0', '100.00', { paymentReference: 'INV-1001', postedDate: '2024-02-01' }),
      tx('t1', '50.00', { paymentReference: 'INV-1001 INV-1002' }),
    ],
    allocations: ['t0>i1 100', 't1>i2 50'],
    exceptions: [],
  },
  {
    name: 'a different currency is a currency mismatch and allocates nothing',
    invoices: [I1001],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001', currency: 'USD' })],
    allocations: [],
    states: { i1: 'open 0' },
    exceptions: ['currency_mismatch t1 [i1] 100'],
  },
  {
    name: 'one invoice in another currency stops a multi-invoice payment',
    invoices: [I1001, inv('u', 'INV-2000', '50.00', { currency: 'USD' })],
    transactions: [tx('t1', '150.00', { paymentReference: 'INV-1001 INV-2000' })],
    allocations: [],
    exceptions: ['currency_mismatch t1 [u] 150'],
  },
  {
    name: 'an outflow naming an invoice never settles it',
    invoices: [I1001],
    transactions: [tx('t1', '-100.00', { paymentReference: 'INV-1001' })],
    allocations: [],
    states: { i1: 'open 0' },
    exceptions: [],
  },
  {
    name: 'a zero amount allocates nothing and raises nothing',
    invoices: [I1001],
    transactions: [tx('t1', '0.00', { paymentReference: 'INV-1001' })],
    allocations: [],
    exceptions: [],
  },
  {
    name: 'a payment for a void invoice is an unmatched payment',
    invoices: [inv('i1', 'INV-1001', '100.00', { void: true })],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001' })],
    allocations: [],
    states: { i1: 'void 0' },
    exceptions: ['unmatched_payment t1 [i1] 100'],
  },
  {
    name: 'amounts compare exactly, never as floating point (0.1 + 0.2 = 0.3)',
    invoices: [inv('i1', 'INV-1001', '0.30')],
    transactions: [
      tx('t1', '0.1', { paymentReference: 'INV-1001', postedDate: '2024-03-01' }),
      tx('t2', '0.2', { paymentReference: 'INV-1001', postedDate: '2024-03-02' }),
    ],
    states: { i1: 'paid 0.3' },
    exceptions: [],
  },
]

const toleranceCases: Case[] = [
  {
    name: 'fee tolerance is off by default: a short payment is partial',
    invoices: [I1001],
    transactions: [tx('t1', '99.50', { paymentReference: 'INV-1001', ...KNOWN_PAYER })],
    states: { i1: 'partially_paid 99.5' },
  },
  {
    name: 'within the absolute fee tolerance the invoice is paid and the rest written off',
    invoices: [I1001],
    config: { feeToleranceAbsolute: '1.00' },
    transactions: [tx('t1', '99.50', { paymentReference: 'INV-1001' })],
    allocations: ['t1>i1 99.5 wo 0.5'],
    states: { i1: 'paid 99.5 wo 0.5' },
  },
  {
    name: 'beyond the absolute fee tolerance the invoice stays partially paid',
    invoices: [I1001],
    config: { feeToleranceAbsolute: '1.00' },
    transactions: [tx('t1', '98.99', { paymentReference: 'INV-1001', ...KNOWN_PAYER })],
    allocations: ['t1>i1 98.99'],
    states: { i1: 'partially_paid 98.99' },
  },
  {
    name: 'within the percent fee tolerance the invoice is paid',
    invoices: [inv('i1', 'INV-1001', '1000.00')],
    config: { feeTolerancePercent: '0.5' },
    transactions: [tx('t1', '995.00', { paymentReference: 'INV-1001' })],
    states: { i1: 'paid 995 wo 5' },
  },
  {
    name: 'beyond the percent fee tolerance the invoice stays partially paid',
    invoices: [inv('i1', 'INV-1001', '1000.00')],
    config: { feeTolerancePercent: '0.5' },
    transactions: [tx('t1', '994.99', { paymentReference: 'INV-1001', ...KNOWN_PAYER })],
    states: { i1: 'partially_paid 994.99' },
  },
  {
    name: 'with both tolerances set the smaller applies',
    invoices: [inv('i1', 'INV-1001', '1000.00')],
    config: { feeToleranceAbsolute: '2.00', feeTolerancePercent: '0.5' },
    transactions: [tx('t1', '997.00', { paymentReference: 'INV-1001', ...KNOWN_PAYER })],
    states: { i1: 'partially_paid 997' },
  },
  {
    name: 'pending money never writes off',
    invoices: [I1001],
    config: { feeToleranceAbsolute: '1.00' },
    transactions: [tx('t1', '99.50', { paymentReference: 'INV-1001', ...KNOWN_PAYER, status: 'pending' })],
    allocations: ['t1>i1 99.5 tentative'],
    states: { i1: 'open 0 pending 99.5' },
  },
]

runCases('matching rules, case by case: amounts and tolerances', [...amountCases, ...toleranceCases])

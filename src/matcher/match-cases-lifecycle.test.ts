import { expect } from 'vitest'
import { I1001, I1002, KNOWN_PAYER, tx, runCases, type Case } from '../../test/support/match-case-table.js'

const lifecycleCases: Case[] = [
  {
    name: 'a pending inflow makes a tentative allocation and leaves the invoice open',
    invoices: [I1001],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001', status: 'pending' })],
    allocations: ['t1>i1 100 tentative'],
    states: { i1: 'open 0 pending 100' },
  },
  {
    name: 'pending money on a partially paid invoice leaves it partially paid',
    invoices: [I1001],
    transactions: [
      tx('t1', '30.00', { paymentReference: 'INV-1001' }),
      tx('t2', '70.00', { paymentReference: 'INV-1001', status: 'pending' }),
    ],
    states: { i1: 'partially_paid 30 pending 70' },
  },
  {
    name: 'the posted version of a pending transaction settles its allocation',
    invoices: [I1001],
    transactions: [
      tx('t1', '100.00', {
        paymentReference: 'INV-1001',
        status: 'pending',
        updatedAt: '2024-03-01T10:00:00Z',
      }),
      tx('t1', '100.00', {
        paymentReference: 'INV-1001',
        status: 'posted',
        updatedAt: '2024-03-02T10:00:00Z',
      }),
    ],
    allocations: ['t1>i1 100'],
    states: { i1: 'paid 100' },
  },
  {
    name: 'posted money takes the open amount before pending money, whatever the dates',
    invoices: [I1001],
    transactions: [
      tx('p', '100.00', {
        paymentReference: 'INV-1001',
        ...KNOWN_PAYER,
        status: 'pending',
        postedDate: '2024-03-01',
      }),
      tx('s', '100.00', {
        paymentReference: 'INV-1001',
        ...KNOWN_PAYER,
        status: 'posted',
        postedDate: '2024-03-09',
      }),
    ],
    allocations: ['s>i1 100'],
    states: { i1: 'paid 100' },
    exceptions: ['overpayment p [i1] 100'],
  },
  {
    name: 'a modified amount re-allocates',
    invoices: [I1001],
    transactions: [
      tx('t1', '100.00', { paymentReference: 'INV-1001', updatedAt: '2024-03-01T10:00:00Z' }),
      tx('t1', '60.00', { paymentReference: 'INV-1001', updatedAt: '2024-03-02T10:00:00Z' }),
    ],
    allocations: ['t1>i1 60'],
    states: { i1: 'partially_paid 60' },
  },
  {
    name: 'a removed transaction has no allocations and the invoice reopens',
    invoices: [I1001],
    transactions: [
      tx('t1', '100.00', { paymentReference: 'INV-1001' }),
      { ...tx('t1', '100.00'), removed: true },
    ],
    allocations: [],
    states: { i1: 'open 0' },
    exceptions: [],
  },
  {
    name: 'a reversed transaction has no allocations',
    invoices: [I1001],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001', status: 'reversed' })],
    allocations: [],
    states: { i1: 'open 0' },
  },
  {
    name: 'a cancelled pending transaction has no allocations',
    invoices: [I1001],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001', status: 'cancelled' })],
    allocations: [],
    states: { i1: 'open 0' },
  },
  {
    name: 'a reversal of one partial payment leaves the other allocated',
    invoices: [I1001],
    transactions: [
      tx('t1', '40.00', { paymentReference: 'INV-1001' }),
      tx('t2', '60.00', { paymentReference: 'INV-1001', status: 'reversed' }),
    ],
    allocations: ['t1>i1 40'],
    states: { i1: 'partially_paid 40' },
  },
  {
    name: 'a person’s match is recorded as made by a person and the engine leaves that payment alone',
    invoices: [I1001, I1002],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1002' })],
    manual: [{ transactionId: 't1', invoiceId: 'i1', amount: '100.00' }],
    allocations: ['t1>i1 100'],
    states: { i2: 'open 0' },
    check: (result) => expect(result.allocations[0]).toMatchObject({ rule: 'manual', madeBy: 'person' }),
  },
  {
    name: 'a person’s match takes the open amount before the engine’s references',
    invoices: [I1001],
    transactions: [
      tx('a', '100.00', { paymentReference: 'INV-1001', ...KNOWN_PAYER, postedDate: '2024-03-01' }),
      tx('b', '100.00', { postedDate: '2024-03-05' }),
    ],
    manual: [{ transactionId: 'b', invoiceId: 'i1', amount: '100.00' }],
    allocations: ['b>i1 100'],
    exceptions: ['overpayment a [i1] 100'],
  },
]

runCases('matching rules, case by case: lifecycle', [...lifecycleCases])

import { expect } from 'vitest'
import type { MatchInvoice, MatchTransaction } from './types.js'
import { inv, tx, runCases, type Case } from '../../test/support/match-case-table.js'

const acme = (id: string, amount: string, issueDate: string, extra: Partial<MatchInvoice> = {}) =>
  inv(id, `INV-${id}`, amount, { issueDate, ...extra })
const fromAcme = (amount: string, extra: Partial<MatchTransaction> = {}) =>
  tx('t1', amount, { paymentReference: 'thanks', counterpartyName: 'ACME LIMITED', ...extra })

const suggestionCases: Case[] = [
  {
    name: 'an amount equal to one open invoice of the same customer is a suggestion, not an allocation',
    invoices: [acme('a', '100.00', '2024-01-01'), acme('b', '75.00', '2024-01-02')],
    transactions: [fromAcme('75.00')],
    allocations: [],
    exceptions: ['suggested_match t1 [b] 75'],
    check: (result) => {
      expect(result.exceptions[0]?.confidence).toBe(80)
      expect(result.exceptions[0]?.reasons.join(' ')).toContain('INV-b')
    },
  },
  {
    name: 'the customer is found by an alias, ignoring case, punctuation and legal suffix',
    invoices: [acme('a', '100.00', '2024-01-01', { customerName: 'Other', customerAliases: ['Acme, Ltd.'] })],
    transactions: [fromAcme('100.00', { counterpartyName: 'acme' })],
    exceptions: ['suggested_match t1 [a] 100'],
  },
  {
    name: 'an invoice of another customer is never suggested',
    invoices: [acme('a', '100.00', '2024-01-01', { customerName: 'Globex' })],
    transactions: [fromAcme('100.00')],
    exceptions: ['unmatched_payment t1 [] 100'],
  },
  {
    name: 'a set of invoices summing exactly to the amount is suggested',
    invoices: [
      acme('a', '10.00', '2024-01-01'),
      acme('b', '20.00', '2024-01-02'),
      acme('c', '40.00', '2024-01-03'),
    ],
    transactions: [fromAcme('70.00')],
    exceptions: ['suggested_match t1 [a,b,c] 70'],
  },
  {
    name: 'the smallest set wins over a larger one',
    invoices: [
      acme('a', '10.00', '2024-01-01'),
      acme('b', '20.00', '2024-01-02'),
      acme('c', '30.00', '2024-01-03'),
    ],
    transactions: [fromAcme('30.00')],
    exceptions: ['suggested_match t1 [c] 30'],
  },
  {
    name: 'of sets of the same size the oldest wins, with less confidence',
    invoices: [acme('new', '30.00', '2024-05-01'), acme('old', '30.00', '2024-01-01')],
    transactions: [fromAcme('30.00')],
    exceptions: ['suggested_match t1 [old] 30'],
    check: (result) => expect(result.exceptions[0]?.confidence).toBe(50),
  },
  {
    name: 'no set of at most five invoices sums to it: unmatched',
    invoices: ['a', 'b', 'c', 'd', 'e', 'f'].map((id, n) => acme(id, '10.00', `2024-01-0${n + 1}`)),
    transactions: [fromAcme('60.00')],
    exceptions: ['unmatched_payment t1 [] 60'],
  },
  {
    name: 'a suggestion at or above the auto-confirm threshold is allocated by the engine',
    invoices: [acme('a', '100.00', '2024-01-01')],
    config: { autoConfirmThreshold: 80 },
    transactions: [fromAcme('100.00')],
    allocations: ['t1>a 100'],
    exceptions: [],
    check: (result) =>
      expect(result.allocations[0]).toMatchObject({ rule: 'suggestion', madeBy: 'engine', confidence: 80 }),
  },
  {
    name: 'a suggestion below the auto-confirm threshold waits for a person',
    invoices: [acme('a', '10.00', '2024-01-01'), acme('b', '20.00', '2024-01-02')],
    config: { autoConfirmThreshold: 80 },
    transactions: [fromAcme('30.00')],
    allocations: [],
    exceptions: ['suggested_match t1 [a,b] 30'],
  },
  {
    name: 'a rejected suggestion is not made again; the next set is offered',
    invoices: [acme('old', '30.00', '2024-01-01'), acme('new', '30.00', '2024-05-01')],
    rejected: [{ transactionId: 't1', invoiceIds: ['old'] }],
    transactions: [fromAcme('30.00')],
    exceptions: ['suggested_match t1 [new] 30'],
  },
  {
    name: 'invoices in another currency are never suggested',
    invoices: [acme('a', '100.00', '2024-01-01', { currency: 'USD' })],
    transactions: [fromAcme('100.00')],
    exceptions: ['unmatched_payment t1 [] 100'],
  },
  {
    name: 'a suggestion uses what is still open of a partially paid invoice',
    invoices: [acme('a', '100.00', '2024-01-01')],
    transactions: [
      tx('t0', '40.00', { paymentReference: 'INV-a', postedDate: '2024-02-01' }),
      fromAcme('60.00'),
    ],
    allocations: ['t0>a 40'],
    exceptions: ['suggested_match t1 [a] 60'],
  },
]

runCases('matching rules, case by case: suggestions', [...suggestionCases])

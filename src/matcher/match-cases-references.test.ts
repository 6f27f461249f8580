import { expect } from 'vitest'
import { rfCheckDigits } from './rf-reference.js'
import {
  I1001,
  I1002,
  inv,
  named,
  paidByRef,
  tx,
  unmatchedByRef,
  runCases,
  type Case,
} from '../../test/support/match-case-table.js'

const RF_INV = `RF${rfCheckDigits('INV1001')}INV1001`
const RF_BAD = `RF${String((Number(rfCheckDigits('INV1001')) + 1) % 100).padStart(2, '0')}INV1001`
const RF_NUMBER = inv('i9', '539007547034', '100.00')

const referenceCases: Case[] = [
  named('names the invoice whose number is the whole reference', paidByRef('INV-1001'), {
    check: (result) => {
      const [allocation] = result.allocations
      expect(allocation).toMatchObject({
        rule: 'reference',
        field: 'paymentReference',
        reference: 'INV-1001',
        via: 'text',
        confidence: 100,
        madeBy: 'engine',
        settled: true,
      })
    },
  }),
  named('ignores case and a space between letters and digits (inv 1001)', paidByRef('inv 1001')),
  named('ignores a missing separator (INV1001)', paidByRef('INV1001')),
  named('ignores mixed case and a hyphen (Inv-1001)', paidByRef('Inv-1001')),
  named('ignores leading zeros in a digit run (INV-0001001)', paidByRef('INV-0001001')),
  named('ignores an underscore separator (inv_1001)', paidByRef('inv_1001')),
  named('ignores punctuation around the number', paidByRef('(INV-1001).')),
  named('finds the number after a slash-separated year (INV-1001/2024)', paidByRef('INV-1001/2024')),
  named('never reads INV-10 as INV-1', unmatchedByRef('INV-10', [inv('i1', 'INV-1', '100.00')])),
  named('never reads INV-100 as INV-10', unmatchedByRef('INV-100', [inv('i1', 'INV-10', '100.00')])),
  named(
    'never reads a longer letter run as the prefix (XINV-1001): another prefix is only suggested',
    unmatchedByRef('XINV-1001'),
    {
      exceptions: ['suggested_match t1 [i1] 100'],
      check: (result) => expect(result.exceptions[0]?.reasons.join(' ')).toContain('carries another prefix'),
    },
  ),
  named('never reads a longer digit run as the number (INV-10011)', unmatchedByRef('INV-10011')),
  named('never lets a blank reference match anything', unmatchedByRef(' -- ')),
  {
    name: 'names INV-10 and not INV-1 when both are known',
    invoices: [inv('i1', 'INV-1', '100.00'), inv('i10', 'INV-10', '100.00')],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-10' })],
    allocations: ['t1>i10 100'],
  },
  {
    name: 'prefers the longest number at a position (INV-1001 over 1001)',
    invoices: [I1001, inv('n', '1001', '100.00')],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV 1001' })],
    allocations: ['t1>i1 100'],
  },
  named(
    'finds the number in free text of the description',
    paidByRef('Payment for invoice INV-1001, thanks', 'description'),
    {
      check: (result) => {
        expect(result.allocations[0]).toMatchObject({ field: 'description' })
        expect(result.allocations[0]?.evidence.map((item) => item.code)).toEqual([
          'full_number',
          'amount_exact',
        ])
        expect(result.allocations[0]?.evidence[0]?.text).toContain('the description')
      },
    },
  ),
  named(
    'reads rawDescription when no other field names an invoice',
    paidByRef('CRED TRF INV1001 ACME', 'rawDescription'),
  ),
  {
    name: 'falls through from a paymentReference naming nothing to customerReference',
    invoices: [I1001],
    transactions: [tx('t1', '100.00', { paymentReference: 'thank you', customerReference: 'INV-1001' })],
    allocations: ['t1>i1 100'],
    check: (result) => expect(result.allocations[0]?.field).toBe('customerReference'),
  },
  {
    name: 'fields naming different invoices at an amount that is not both together are a conflict (issue 25 rule 11)',
    invoices: [I1001, I1002],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001', description: 'INV-1002' })],
    allocations: [],
    exceptions: ['suggested_match t1 [i1] 100'],
    states: { i2: 'open 0' },
    check: (result) =>
      expect(result.exceptions[0]?.evidence.map((item) => item.code)).toContain('conflict_fields'),
  },
  {
    name: 'fields naming different invoices at exactly both together settle both (issue 25 rule 11)',
    invoices: [I1001, I1002],
    transactions: [tx('t1', '150.00', { paymentReference: 'INV-1001', description: 'Rechnung INV-1002' })],
    allocations: ['t1>i1 100', 't1>i2 50'],
    check: (result) => {
      expect(result.allocations.map((item) => item.field)).toEqual(['paymentReference', 'description'])
      expect(result.allocations[0]?.evidence.map((item) => item.code)).toContain('fields_combined')
    },
  },
  named('understands a valid RF reference (electronic form)', paidByRef(RF_INV), {
    check: (result) => expect(result.allocations[0]).toMatchObject({ via: 'rf', reference: RF_INV }),
  }),
  {
    name: 'understands a valid RF reference printed in groups of four',
    invoices: [RF_NUMBER],
    transactions: [tx('t1', '100.00', { paymentReference: 'RF18 5390 0754 7034' })],
    allocations: ['t1>i9 100'],
  },
  {
    name: 'an RF reference with invalid check digits is a typo: suggested, never applied',
    invoices: [RF_NUMBER],
    transactions: [tx('t1', '100.00', { paymentReference: 'RF19 5390 0754 7034' })],
    allocations: [],
    exceptions: ['suggested_match t1 [i9] 100'],
    check: (result) => expect(result.exceptions[0]?.evidence[0]?.code).toBe('check_digits_invalid'),
  },
  named('an invalid RF reference is never applied through the number inside it', unmatchedByRef(RF_BAD), {
    exceptions: ['suggested_match t1 [i1] 100'],
  }),
  {
    name: 'reads the text after a valid printed RF reference',
    invoices: [RF_NUMBER, I1002],
    transactions: [tx('t1', '150.00', { paymentReference: 'RF18 5390 0754 7034 and INV-1002' })],
    allocations: ['t1>i9 100', 't1>i2 50'],
  },
  named(
    'understands a SWIFT /INV/ code with its date',
    paidByRef('/INV/INV-1001/20240301', 'rawDescription'),
    {
      check: (result) => expect(result.allocations[0]?.via).toBe('swift'),
    },
  ),
  named('understands a SWIFT /RFB/ code', paidByRef('/RFB/INV-1001//ROC/88')),
  named('understands an RF reference inside a SWIFT /RFB/ code', paidByRef(`/RFB/${RF_INV}`), {
    check: (result) => expect(result.allocations[0]?.via).toBe('rf'),
  }),
  {
    name: 'a SWIFT /INV/ value names the invoice with exactly that number first',
    invoices: [I1001, inv('n', '1001', '100.00')],
    transactions: [tx('t1', '100.00', { paymentReference: '/INV/1001' })],
    allocations: ['t1>n 100'],
  },
  {
    name: 'several invoices in one text are each paid, in the order named',
    invoices: [I1001, I1002],
    transactions: [tx('t1', '150.00', { paymentReference: 'INV-1001 INV-1002' })],
    allocations: ['t1>i1 100', 't1>i2 50'],
    states: { i1: 'paid 100', i2: 'paid 50' },
  },
  {
    name: 'an invoice named twice in one text is paid once',
    invoices: [I1001],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001 / INV-1001' })],
    allocations: ['t1>i1 100'],
    exceptions: [],
  },
  {
    name: 'the same number in two entities is an ambiguous reference and allocates nothing',
    invoices: [
      inv('a', 'INV-1001', '100.00', { entityId: 'e1' }),
      inv('b', 'INV-1001', '100.00', { entityId: 'e2' }),
    ],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001' })],
    allocations: [],
    exceptions: ['ambiguous_reference t1 [a,b] 100'],
  },
  {
    name: 'one ambiguous number in a multi-invoice text allocates nothing at all',
    invoices: [
      inv('a', 'INV-1001', '100.00', { entityId: 'e1' }),
      inv('b', 'INV-1001', '100.00', { entityId: 'e2' }),
      I1002,
    ],
    transactions: [tx('t1', '150.00', { paymentReference: 'INV-1002 INV-1001' })],
    allocations: [],
    exceptions: ['ambiguous_reference t1 [a,b] 150'],
  },
  {
    name: 'the invoice expecting the receiving account resolves a same-number tie',
    invoices: [
      inv('a', 'INV-1001', '100.00', { accountId: 'other' }),
      inv('b', 'INV-1001', '100.00', { accountId: 'acc' }),
    ],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001' })],
    allocations: ['t1>b 100'],
  },
  {
    name: 'the transaction’s entity resolves a same-number tie',
    invoices: [
      inv('a', 'INV-1001', '100.00', { entityId: 'e1' }),
      inv('b', 'INV-1001', '100.00', { entityId: 'e2' }),
    ],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001', entityId: 'e2' })],
    allocations: ['t1>b 100'],
  },
  {
    name: 'a void invoice with the same number does not make the reference ambiguous',
    invoices: [inv('a', 'INV-1001', '100.00', { void: true }), inv('b', 'INV-1001', '100.00')],
    transactions: [tx('t1', '100.00', { paymentReference: 'INV-1001' })],
    allocations: ['t1>b 100'],
  },
]

runCases('matching rules, case by case: references', [...referenceCases])

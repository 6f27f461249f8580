import { describe, expect, it } from 'vitest'
import { matchConfig, type MatchConfigInput } from './config.js'
import { matchPayments, type MatchPaymentsResult } from './match-payments.js'
import { rfCheckDigits } from './rf-reference.js'
import { matchTransferLegs, type MatchTransfer } from './transfer-legs.js'
import type {
  Allocation,
  InvoiceState,
  ManualAllocation,
  MatchException,
  MatchInvoice,
  MatchTransaction,
  RejectedSuggestion,
} from './types.js'

function inv(id: string, number: string, amount: string, extra: Partial<MatchInvoice> = {}): MatchInvoice {
  return { id, number, amount, currency: 'EUR', customerName: 'Acme Ltd', issueDate: '2024-01-01', ...extra }
}

function tx(id: string, amount: string, extra: Partial<MatchTransaction> = {}): MatchTransaction {
  return {
    id,
    accountId: 'acc',
    amount,
    currency: 'EUR',
    status: 'posted',
    postedDate: '2024-03-01',
    ...extra,
  }
}

/** `t1>i1 100`, with ` tentative` for pending money and ` wo X` for a write-off. */
function allocationLine(allocation: Allocation): string {
  const flags = [
    allocation.settled ? '' : ' tentative',
    allocation.writeOff === '0' ? '' : ` wo ${allocation.writeOff}`,
  ]
  return `${allocation.transactionId}>${allocation.invoiceId} ${allocation.amount}${flags.join('')}`
}

/** `paid 100`, with ` pending X`, ` over X` and ` wo X` when not zero. */
function stateLine(state: InvoiceState): string {
  const extra = [
    state.amountPending === '0' ? '' : ` pending ${state.amountPending}`,
    state.amountOverpaid === '0' ? '' : ` over ${state.amountOverpaid}`,
    state.amountWrittenOff === '0' ? '' : ` wo ${state.amountWrittenOff}`,
  ]
  return `${state.status} ${state.amountPaid}${extra.join('')}`
}

/** `overpayment t1 [i1] 20` (amount only when the exception carries one). */
function exceptionLine(exception: MatchException): string {
  const amount = exception.amount === null ? '' : ` ${exception.amount}`
  return `${exception.type} ${exception.transactionId} [${exception.invoiceIds.join(',')}]${amount}`
}

type Case = {
  name: string
  invoices: MatchInvoice[]
  transactions: MatchTransaction[]
  manual?: ManualAllocation[]
  rejected?: RejectedSuggestion[]
  config?: MatchConfigInput
  allocations?: string[]
  states?: Record<string, string>
  exceptions?: string[]
  check?: (result: MatchPaymentsResult) => void
}

/** Issue 25 rule 2: an amount that does not fit is weighed with the payer; these cases are about the money. */
const KNOWN_PAYER = { counterpartyName: 'Acme Ltd' } as const
const I1001 = inv('i1', 'INV-1001', '100.00')
const I1002 = inv('i2', 'INV-1002', '50.00')
const paidByRef = (reference: string, field: keyof MatchTransaction = 'paymentReference'): Case => ({
  name: '',
  invoices: [I1001, I1002],
  transactions: [tx('t1', '100.00', { [field]: reference })],
  allocations: ['t1>i1 100'],
  exceptions: [],
})
const unmatchedByRef = (reference: string, invoices: MatchInvoice[] = [I1001]): Case => ({
  name: '',
  invoices,
  transactions: [tx('t1', '100.00', { paymentReference: reference, counterpartyName: 'Someone Else' })],
  allocations: [],
  exceptions: ['unmatched_payment t1 [] 100'],
})
const named = (name: string, base: Case, extra: Partial<Case> = {}): Case => ({ ...base, ...extra, name })

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

const cases: Case[] = [
  ...referenceCases,
  ...amountCases,
  ...lifecycleCases,
  ...toleranceCases,
  ...suggestionCases,
]

describe('matching rules, case by case', () => {
  it.each(cases.map((entry) => [entry.name, entry] as const))('%s', (_, entry) => {
    const result = matchPayments({
      invoices: entry.invoices,
      transactions: entry.transactions,
      manualAllocations: entry.manual,
      rejectedSuggestions: entry.rejected,
      config: matchConfig(entry.config),
    })
    if (entry.allocations)
      expect(result.allocations.map(allocationLine).sort()).toEqual([...entry.allocations].sort())
    if (entry.exceptions)
      expect(result.exceptions.map(exceptionLine).sort()).toEqual([...entry.exceptions].sort())
    for (const [invoiceId, expected] of Object.entries(entry.states ?? {})) {
      const state = result.invoices.find((candidate) => candidate.invoiceId === invoiceId) as InvoiceState
      expect(stateLine(state)).toBe(expected)
    }
    entry.check?.(result)
  })
})

const NOW = new Date('2024-03-10T00:00:00Z')
const transfer = (extra: Partial<MatchTransfer> = {}): MatchTransfer => ({
  id: 'tr1',
  clientReference: 'REF-2024-001',
  amount: '500.00',
  currency: 'EUR',
  sourceAccountId: 'src',
  destinationAccountId: 'dst',
  status: 'completed',
  createdAt: '2024-03-01T09:00:00Z',
  completedAt: '2024-03-01T10:00:00Z',
  ...extra,
})
const out = (id: string, extra: Partial<MatchTransaction> = {}) =>
  tx(id, '-500.00', { accountId: 'src', description: 'Transfer ref 2024/001', ...extra })
const into = (id: string, extra: Partial<MatchTransaction> = {}) =>
  tx(id, '500.00', { accountId: 'dst', paymentReference: 'ref2024-0001', ...extra })

type LegCase = {
  name: string
  transfers: MatchTransfer[]
  transactions: MatchTransaction[]
  legs: Record<string, [string | null, string | null]>
  missing: string[]
}

const legCases: LegCase[] = [
  {
    name: 'finds the outflow on the source and the inflow on the destination by normalized reference',
    transfers: [transfer()],
    transactions: [out('o1'), into('i1')],
    legs: { tr1: ['o1', 'i1'] },
    missing: [],
  },
  {
    name: 'a transaction with another amount is not a leg',
    transfers: [transfer()],
    transactions: [out('o1', { amount: '-499.99' }), into('i1')],
    legs: { tr1: [null, 'i1'] },
    missing: ['tr1'],
  },
  {
    name: 'a transaction on another account is not a leg',
    transfers: [transfer()],
    transactions: [out('o1', { accountId: 'elsewhere' }), into('i1', { accountId: 'src' })],
    legs: { tr1: [null, null] },
    missing: ['tr1'],
  },
  {
    name: 'a removed transaction is not a leg',
    transfers: [transfer()],
    transactions: [out('o1'), into('i1', { removed: true })],
    legs: { tr1: ['o1', null] },
    missing: ['tr1'],
  },
  {
    name: 'a completed transfer whose leg is missing inside the window raises nothing yet',
    transfers: [transfer({ completedAt: '2024-03-08T00:00:00Z' })],
    transactions: [out('o1')],
    legs: { tr1: ['o1', null] },
    missing: [],
  },
  {
    name: 'a transfer that is not completed raises nothing',
    transfers: [transfer({ status: 'executing', completedAt: null })],
    transactions: [],
    legs: { tr1: [null, null] },
    missing: [],
  },
  {
    name: 'one transaction is the leg of one transfer only, the oldest first',
    transfers: [transfer({ id: 'tr2', createdAt: '2024-03-02T09:00:00Z' }), transfer()],
    transactions: [out('o1'), into('i1')],
    legs: { tr1: ['o1', 'i1'], tr2: [null, null] },
    missing: ['tr2'],
  },
]

describe('transfer legs, case by case', () => {
  it.each(legCases.map((entry) => [entry.name, entry] as const))('%s', (_, entry) => {
    const result = matchTransferLegs({
      transfers: entry.transfers,
      transactions: entry.transactions,
      now: NOW,
    })
    const legs = Object.fromEntries(
      result.legs.map((leg) => [leg.transferId, [leg.outflowTransactionId, leg.inflowTransactionId]]),
    )
    expect(legs).toEqual(entry.legs)
    expect(result.exceptions.map((exception) => exception.transferId).sort()).toEqual(
      [...entry.missing].sort(),
    )
    for (const exception of result.exceptions) expect(exception.type).toBe('transfer_leg_missing')
  })
})

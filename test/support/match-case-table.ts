/**
 * The case table the matcher's rule tests share (src/matcher/match-cases-*.test.ts): invoices and transactions in
 * short form, a case's expected allocations, exceptions and invoice states as one line each, and the runner.
 */
import { describe, expect, it } from 'vitest'
import { matchConfig, type MatchConfigInput } from '../../src/matcher/config.js'
import { matchPayments, type MatchPaymentsResult } from '../../src/matcher/match-payments.js'
import type {
  Allocation,
  InvoiceState,
  ManualAllocation,
  MatchException,
  MatchInvoice,
  MatchTransaction,
  RejectedSuggestion,
} from '../../src/matcher/types.js'

export function inv(
  id: string,
  number: string,
  amount: string,
  extra: Partial<MatchInvoice> = {},
): MatchInvoice {
  return { id, number, amount, currency: 'EUR', customerName: 'Acme Ltd', issueDate: '2024-01-01', ...extra }
}

export function tx(id: string, amount: string, extra: Partial<MatchTransaction> = {}): MatchTransaction {
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

export type Case = {
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
export const KNOWN_PAYER = { counterpartyName: 'Acme Ltd' } as const
export const I1001 = inv('i1', 'INV-1001', '100.00')
export const I1002 = inv('i2', 'INV-1002', '50.00')
export const paidByRef = (reference: string, field: keyof MatchTransaction = 'paymentReference'): Case => ({
  name: '',
  invoices: [I1001, I1002],
  transactions: [tx('t1', '100.00', { [field]: reference })],
  allocations: ['t1>i1 100'],
  exceptions: [],
})
export const unmatchedByRef = (reference: string, invoices: MatchInvoice[] = [I1001]): Case => ({
  name: '',
  invoices,
  transactions: [tx('t1', '100.00', { paymentReference: reference, counterpartyName: 'Someone Else' })],
  allocations: [],
  exceptions: ['unmatched_payment t1 [] 100'],
})
export const named = (name: string, base: Case, extra: Partial<Case> = {}): Case => ({
  ...base,
  ...extra,
  name,
})

/** One test per case: the allocations, exceptions and invoice states it lists come out of `matchPayments`. */
export function runCases(title: string, cases: readonly Case[]): void {
  describe(title, () => {
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
}

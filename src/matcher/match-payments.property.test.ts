import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { matchConfig } from './config.js'
import { formatUnits, toUnits } from './money.js'
import { matchPayments, type MatchPaymentsInput } from './match-payments.js'
import type { ManualAllocation, MatchInvoice, MatchTransaction } from './types.js'

const NUMBERS = ['INV-1', 'INV-10', 'INV-1001', 'SO-7', '42']
const CUSTOMERS = ['Acme Ltd', 'Globex GmbH', 'Initech']
const DATES = ['2024-01-01', '2024-01-02', '2024-01-03']

const cents = (min: number, max: number) =>
  fc.integer({ min, max }).map((value) => formatUnits(BigInt(value) * 10n ** 16n))

const invoiceArb = fc.record({
  number: fc.constantFrom(...NUMBERS),
  amount: cents(1, 20_000),
  currency: fc.constantFrom('EUR', 'EUR', 'EUR', 'USD'),
  customerName: fc.constantFrom(...CUSTOMERS),
  issueDate: fc.constantFrom(...DATES),
  entityId: fc.constantFrom('e1', 'e2'),
  void: fc.constantFrom(false, false, false, true),
})

const mangle = (number: string, style: number) =>
  [number, number.toLowerCase(), number.replace('-', ' '), number.replace('-', ''), `paid ${number} thx`][
    style
  ]

const transactionArb = fc.record({
  id: fc.constantFrom('t1', 't2', 't3', 't4', 't5', 't6'),
  amount: fc.oneof(cents(1, 20_000), cents(-20_000, 0)),
  currency: fc.constantFrom('EUR', 'EUR', 'EUR', 'USD'),
  status: fc.constantFrom('posted', 'posted', 'pending', 'reversed', 'cancelled'),
  removed: fc.constantFrom(false, false, false, false, true),
  postedDate: fc.constantFrom(...DATES),
  updatedAt: fc.constantFrom('2024-02-01T00:00:00Z', '2024-02-02T00:00:00Z', '2024-02-03T00:00:00Z'),
  references: fc.array(fc.tuple(fc.constantFrom(...NUMBERS), fc.integer({ min: 0, max: 4 })), {
    maxLength: 3,
  }),
  field: fc.constantFrom('paymentReference', 'customerReference', 'description', 'rawDescription'),
  counterpartyName: fc.constantFrom(...CUSTOMERS, 'ACME LIMITED', 'Nobody'),
})

const inputArb = fc
  .record({
    invoices: fc.array(invoiceArb, { minLength: 1, maxLength: 8 }),
    transactions: fc.array(transactionArb, { maxLength: 10 }),
    manual: fc.array(fc.record({ tx: fc.nat(), invoice: fc.nat(), amount: cents(1, 20_000) }), {
      maxLength: 2,
    }),
    feeTolerance: fc.option(cents(1, 500), { nil: null }),
    autoConfirmThreshold: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
  })
  .map(({ invoices, transactions, manual, feeTolerance, autoConfirmThreshold }): MatchPaymentsInput => {
    const matchInvoices: MatchInvoice[] = invoices.map((invoice, index) => ({ ...invoice, id: `i${index}` }))
    const matchTransactions: MatchTransaction[] = transactions.map(
      ({ references, field, ...transaction }) => ({
        ...transaction,
        accountId: 'acc',
        status: transaction.status as MatchTransaction['status'],
        [field]: references.map(([number, style]) => mangle(number, style)).join(' '),
      }),
    )
    const manualAllocations: ManualAllocation[] = matchTransactions.length
      ? manual.map(({ tx, invoice, amount }) => ({
          transactionId: (matchTransactions[tx % matchTransactions.length] as MatchTransaction).id,
          invoiceId: (matchInvoices[invoice % matchInvoices.length] as MatchInvoice).id,
          amount,
        }))
      : []
    return {
      invoices: matchInvoices,
      transactions: matchTransactions,
      manualAllocations,
      config: matchConfig({ feeToleranceAbsolute: feeTolerance, autoConfirmThreshold }),
    }
  })

/** A seeded shuffle that also repeats some items: the same changes, in another order, some applied twice. */
function reshuffle<T>(items: readonly T[], seed: number): T[] {
  let state = seed || 1
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 2 ** 32
  }
  const result = [...items, ...items.filter(() => next() < 0.5)]
  for (let index = result.length - 1; index > 0; index--) {
    const other = Math.floor(next() * (index + 1))
    ;[result[index], result[other]] = [result[other] as T, result[index] as T]
  }
  return result
}

function sum(values: readonly string[]): bigint {
  return values.reduce((total, value) => total + toUnits(value), 0n)
}

describe('rule 9: deterministic and idempotent', () => {
  it('gives identical results for the same changes in any order, applied any number of times', () => {
    fc.assert(
      fc.property(inputArb, fc.integer(), (input, seed) => {
        const expected = matchPayments(input)
        const again = matchPayments({
          ...input,
          invoices: reshuffle(input.invoices, seed),
          transactions: reshuffle(input.transactions, seed + 1),
          manualAllocations: reshuffle(input.manualAllocations ?? [], seed + 2),
        })
        expect(again).toEqual(expected)
      }),
      { numRuns: 400 },
    )
  })

  it('never allocates a transaction more than its amount, and only active inflows at all', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const result = matchPayments(input)
        const latest = new Map<string, MatchTransaction>()
        for (const transaction of reconcileLatest(input.transactions)) latest.set(transaction.id, transaction)
        for (const [transactionId, transaction] of latest) {
          const allocated = result.allocations.filter(
            (allocation) => allocation.transactionId === transactionId,
          )
          if (allocated.length === 0) continue
          expect(transaction.removed).toBeFalsy()
          expect(['posted', 'pending', 'unknown']).toContain(transaction.status)
          expect(sum(allocated.map((allocation) => allocation.amount)) <= toUnits(transaction.amount)).toBe(
            true,
          )
          for (const allocation of allocated) {
            expect(toUnits(allocation.amount) > 0n).toBe(true)
            expect(allocation.settled).toBe(transaction.status === 'posted')
          }
        }
      }),
      { numRuns: 400 },
    )
  })

  it('keeps every invoice’s amountPaid equal to its settled allocations and never above its amount', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const result = matchPayments(input)
        const latest = new Map(
          reconcileLatest(input.transactions).map((transaction) => [transaction.id, transaction]),
        )
        for (const invoice of input.invoices) {
          const state = result.invoices.find((candidate) => candidate.invoiceId === invoice.id)
          if (!state) throw new Error(`no state for ${invoice.id}`)
          const mine = result.allocations.filter((allocation) => allocation.invoiceId === invoice.id)
          const settled = mine.filter((allocation) => allocation.settled)
          expect(toUnits(state.amountPaid)).toBe(sum(settled.map((allocation) => allocation.amount)))
          expect(toUnits(state.amountWrittenOff)).toBe(sum(settled.map((allocation) => allocation.writeOff)))
          expect(toUnits(state.amountPending)).toBe(
            sum(mine.filter((allocation) => !allocation.settled).map((allocation) => allocation.amount)),
          )
          const amount = toUnits(invoice.amount)
          expect(toUnits(state.amountPaid) + toUnits(state.amountWrittenOff) <= amount).toBe(true)
          expect(toUnits(state.amountOpen)).toBe(
            amount - toUnits(state.amountPaid) - toUnits(state.amountWrittenOff),
          )
          if (invoice.void) expect(mine).toEqual([])
          for (const allocation of mine) {
            expect(latest.get(allocation.transactionId)?.currency).toBe(invoice.currency)
          }
          if (state.status === 'overpaid') expect(toUnits(state.amountOverpaid) > 0n).toBe(true)
          if (state.status === 'paid') expect(toUnits(state.amountOpen)).toBe(0n)
          if (state.status === 'open') expect(toUnits(state.amountPaid)).toBe(0n)
        }
      }),
      { numRuns: 400 },
    )
  })
})

/** The version of each transaction the matcher must use: a removal wins, then the latest updatedAt. */
function reconcileLatest(transactions: readonly MatchTransaction[]): MatchTransaction[] {
  const byId = new Map<string, MatchTransaction[]>()
  for (const transaction of transactions)
    byId.set(transaction.id, [...(byId.get(transaction.id) ?? []), transaction])
  return [...byId.values()].map((versions) => {
    const removed = versions.filter((version) => version.removed)
    const pool = removed.length > 0 ? removed : versions
    return pool.reduce((a, b) => {
      if ((a.updatedAt ?? '') !== (b.updatedAt ?? ''))
        return (a.updatedAt ?? '') > (b.updatedAt ?? '') ? a : b
      return JSON.stringify(a) > JSON.stringify(b) ? a : b
    })
  })
}

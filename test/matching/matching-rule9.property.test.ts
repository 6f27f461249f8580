import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

let store: MatchingStore

beforeAll(async () => {
  store = await createMatchingStore('matching_rule9')
})

afterAll(async () => {
  await store?.drop()
})

const CUSTOMERS = ['Acme Ltd', 'Globex', null]
const MANGLE = [
  (n: number) => `INV-${n}`,
  (n: number) => `inv ${n}`,
  (n: number) => `INV-000${n}`,
  (n: number) => `Inv${n}`,
]

type Change =
  | { kind: 'invoice'; id: string; number: number; amount: string; customer: string | null }
  | {
      kind: 'payment'
      id: string
      amount: string
      reference: string | null
      counterparty: string | null
      status: string
    }
  | { kind: 'removal'; id: string }

const invoiceArb = (index: number) =>
  fc
    .record({
      amount: fc.integer({ min: 1, max: 20 }).map((units) => `${units * 5}`),
      customer: fc.constantFrom(...CUSTOMERS),
    })
    .map(
      ({ amount, customer }) =>
        ({ kind: 'invoice', id: `inv-${index}`, number: 100 + index, amount, customer }) as const,
    )

const paymentArb = (index: number, invoices: number) =>
  fc
    .record({
      amount: fc.integer({ min: 1, max: 30 }).map((units) => `${units * 5}`),
      named: fc.array(fc.integer({ min: 0, max: invoices }), { maxLength: 2 }),
      mangle: fc.integer({ min: 0, max: MANGLE.length - 1 }),
      counterparty: fc.constantFrom(...CUSTOMERS),
      status: fc.constantFrom('posted', 'posted', 'pending'),
      // Some payments go back out: an outflow with return wording that may name invoices (whole or partial returns).
      back: fc.constantFrom(null, null, null, 'RETURN MD06', 'CHARGEBACK'),
    })
    .map(({ amount, named, mangle, counterparty, status, back }) => ({
      kind: 'payment' as const,
      id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      amount: back ? `-${amount}` : amount,
      reference:
        [back, ...named.map((n) => MANGLE[mangle]!(100 + n))].filter((part) => part !== null).join(' ') ||
        null,
      counterparty,
      status,
    }))

/** A world of invoices and payments, some payments removed again. */
const worldArb = fc.integer({ min: 1, max: 4 }).chain((invoices) =>
  fc.integer({ min: 1, max: 5 }).chain((payments) =>
    fc
      .tuple(
        fc.tuple(...Array.from({ length: invoices }, (_, i) => invoiceArb(i))),
        fc.tuple(...Array.from({ length: payments }, (_, i) => paymentArb(i, invoices))),
        fc.array(fc.integer({ min: 0, max: payments - 1 }), { maxLength: 1 }),
      )
      .map(([inv, pay, removed]) => {
        const changes: Change[] = [...inv, ...pay]
        for (const index of removed) changes.push({ kind: 'removal', id: pay[index]!.id })
        return changes
      }),
  ),
)

async function apply(change: Change): Promise<void> {
  if (change.kind === 'invoice') {
    await store.invoice({
      id: change.id,
      number: `INV-${change.number}`,
      amount: change.amount,
      customerName: change.customer,
    })
  } else if (change.kind === 'payment') {
    await store.pay({
      id: change.id,
      amount: change.amount,
      paymentReference: change.reference,
      counterpartyName: change.counterparty,
      status: change.status,
      updatedAt: '2026-03-01T00:00:00.000Z',
    })
  } else {
    await store.remove(change.id)
  }
}

/** Applies the changes in the given order, running matching after the marked ones; removals stay last per id. */
async function outcome(changes: readonly Change[], runAfter: ReadonlySet<number>) {
  await store.reset()
  for (const [index, change] of changes.entries()) {
    await apply(change)
    if (runAfter.has(index)) await store.run()
  }
  await store.run()
  const allocations = (await store.allocations()).map(({ id: _id, ...rest }) => rest)
  const states = await store.db
    .selectFrom('invoice_state')
    .select(['invoice_id', 'status', 'amount_paid', 'amount_pending', 'amount_open', 'amount_overpaid'])
    .orderBy('invoice_id')
    .execute()
  const exceptions = await store.openExceptions()
  return { allocations, states, exceptions }
}

/** Any order that keeps each payment's removal after the payment, with some changes applied twice. */
function reorderings(changes: readonly Change[]) {
  return fc
    .tuple(
      fc.shuffledSubarray([...changes.keys()], { minLength: changes.length, maxLength: changes.length }),
      fc.subarray([...changes.keys()]),
      fc.subarray([...changes.keys()]),
    )
    .map(([order, duplicated, runs]) => {
      const removals = order.filter((index) => changes[index]!.kind === 'removal')
      const rest = order.filter((index) => changes[index]!.kind !== 'removal')
      const sequence = [...rest, ...removals]
      const withDuplicates = sequence.flatMap((index) =>
        duplicated.includes(index) ? [index, index] : [index],
      )
      return { sequence: withDuplicates.map((index) => changes[index]!), runs: new Set(runs) }
    })
}

describe('rule 9: the case seed 781800497 shrank to', () => {
  // A Globex payment naming Acme Ltd's INV-101 (20) and the customerless INV-102 (80) for 40. Globex is known
  // only by an invoice another payment paid in full: the payer must be recognised whether or not that invoice is
  // among the changes of a run, and the payment, naming another customer's invoice for an amount that does not
  // fit, is never applied.
  const changes: Change[] = [
    { kind: 'invoice', id: 'inv-0', number: 100, amount: '100', customer: 'Globex' },
    { kind: 'invoice', id: 'inv-1', number: 101, amount: '20', customer: 'Acme Ltd' },
    { kind: 'invoice', id: 'inv-2', number: 102, amount: '80', customer: null },
    {
      kind: 'payment',
      id: '00000000-0000-4000-8000-000000000000',
      amount: '40',
      reference: 'INV-101 INV-102',
      counterparty: 'Globex',
      status: 'posted',
    },
    {
      kind: 'payment',
      id: '00000000-0000-4000-8000-000000000002',
      amount: '145',
      reference: 'INV-100',
      counterparty: null,
      status: 'posted',
    },
  ]
  const [inv0, inv1, inv2, named, overpaying] = changes as [Change, Change, Change, Change, Change]

  it.each([
    ['all at once', [inv0, inv1, inv2, named, overpaying], []],
    ['INV-101 last, after a run', [inv0, overpaying, named, inv2, inv1], [3]],
    ['payments first', [overpaying, named, inv0, inv2, inv1], []],
  ] as const)('%s: suggests INV-101 and INV-102, applies nothing', async (_label, sequence, runs) => {
    const result = await outcome(sequence, new Set(runs))
    expect(result.allocations.filter((item) => item.transaction_id === named.id)).toEqual([])
    expect(result.exceptions.filter((item) => item.transaction_id === named.id)).toEqual([
      {
        key: `suggested_match:${named.id}:inv-1,inv-2`,
        type: 'suggested_match',
        transaction_id: named.id,
        invoice_ids: ['inv-1', 'inv-2'],
      },
    ])
    const reasons = (await store.exception(`suggested_match:${named.id}:inv-1,inv-2`))?.details
    expect(JSON.stringify(reasons)).toContain('conflict_other_customer')
  })
})

// Locally a fresh seed each run explores new worlds; RULE9_SEED=<seed> replays one (a failure names its seed).
// CI runs one fixed seed, so a landing is not decided by chance; seeds 1843102501 and 20261125 found the last gap
// (a partial return's ambiguity left open after its inflow was removed).
const SEED = Number(
  process.env.RULE9_SEED ?? (process.env.CI ? 20261125 : Math.floor(Math.random() * 2 ** 31)),
)

describe('rule 9 over the store pipeline', () => {
  it('gives identical allocations, invoice states and exceptions for the same changes in any order, any number of times', async () => {
    const details = await fc.check(
      fc.asyncProperty(
        worldArb.chain((changes) =>
          fc.tuple(fc.constant(changes), reorderings(changes), reorderings(changes)),
        ),
        async ([changes, first, second]) => {
          const reference = await outcome(changes, new Set())
          const a = await outcome(first.sequence, first.runs)
          const b = await outcome(second.sequence, second.runs)
          expect(a).toEqual(reference)
          expect(b).toEqual(reference)
          for (const state of reference.states) {
            const paid = reference.allocations
              .filter((allocation) => allocation.invoice_id === state.invoice_id && allocation.settled)
              .reduce((sum, allocation) => sum + Number(allocation.amount), 0)
            expect(Number(state.amount_paid)).toBe(paid)
          }
        },
      ),
      { numRuns: 25, seed: SEED },
    )
    if (details.failed) {
      throw new Error(
        `rule 9 failed; reproduce with RULE9_SEED=${SEED}\n${fc.defaultReportMessage(details)}`,
        {
          cause: details.errorInstance,
        },
      )
    }
  }, 120_000)
})

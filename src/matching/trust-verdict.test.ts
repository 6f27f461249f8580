import { Decimal } from 'decimal.js'
import { describe, expect, it } from 'vitest'
import type { AllocationRow, ShadowDecisionRow, TrustInputs } from '../store/index.js'
import { sameAmounts, trustVerdict, undoneByPerson } from './trust-verdict.js'

const RECORDED = new Date('2026-03-02T09:00:00Z')
const LATER = new Date('2026-03-02T10:00:00Z')

function decision(overrides: Partial<ShadowDecisionRow> = {}): ShadowDecisionRow {
  return {
    id: '1',
    transaction_id: 'tx-1',
    kind: 'allocate',
    digest: 'd',
    amount: '100',
    currency: 'EUR',
    invoice_ids: ['inv-1'],
    confidence: 90,
    recorded_at: RECORDED,
    decision: {
      allocations: [
        {
          invoiceId: 'inv-1',
          amount: '100',
          writeOff: '0',
          writeOffReason: null,
          rule: 'reference',
          confidence: 90,
          settled: true,
          evidence: [{ code: 'full_number', points: 90, text: 'names INV-1' }],
        },
      ],
      return: null,
      reasons: ['names INV-1'],
    },
    ...overrides,
  }
}

function allocation(overrides: Partial<AllocationRow>): AllocationRow {
  return {
    id: '1',
    transaction_id: 'tx-1',
    invoice_id: 'inv-1',
    amount: '100',
    write_off: '0',
    write_off_reason: null,
    write_off_account: null,
    settled: true,
    rule: 'manual',
    field: null,
    matched_reference: null,
    via: null,
    confidence: 100,
    made_by: 'person',
    evidence: [],
    created_at: LATER,
    reversed_at: null,
    reversal_reason: null,
    actor: 'carla',
    ...overrides,
  }
}

function inputs(overrides: Partial<TrustInputs> = {}): TrustInputs {
  return {
    transactions: [],
    allocations: [],
    manualMatches: [],
    dispositions: [],
    rejections: [],
    returns: [],
    invoiceNumbers: new Map(),
    ...overrides,
  }
}

const match = (invoiceId: string, amount: string) => ({
  transaction_id: 'tx-1',
  invoice_id: invoiceId,
  amount,
  actor: 'carla',
  created_at: LATER,
  removed_at: null,
})

describe('trustVerdict of a would-be settlement', () => {
  it('is open while nobody decided', () => {
    expect(trustVerdict(decision(), inputs())).toMatchObject({ outcome: 'open', actors: [] })
  })

  it('agrees when a person matched the same invoice with the same amount (written differently)', () => {
    const verdict = trustVerdict(
      decision(),
      inputs({ allocations: [allocation({ amount: '100.00' })], manualMatches: [match('inv-1', '100.00')] }),
    )
    expect(verdict).toMatchObject({ outcome: 'agreed', actors: ['carla'] })
  })

  it('disagrees on another amount or another invoice', () => {
    const part = inputs({
      allocations: [allocation({ amount: '60' })],
      manualMatches: [match('inv-1', '60')],
    })
    expect(trustVerdict(decision(), part).outcome).toBe('disagreed')
    const other = inputs({
      allocations: [allocation({ invoice_id: 'inv-9' })],
      manualMatches: [match('inv-9', '100')],
    })
    expect(trustVerdict(decision(), other)).toMatchObject({
      outcome: 'disagreed',
      now: [{ invoiceId: 'inv-9', amount: '100', madeBy: 'person', actor: 'carla' }],
    })
  })

  it('disagrees when a person rejected it, and when the engine applied it later it is nobody’s verdict', () => {
    const rejected = inputs({
      rejections: [{ transaction_id: 'tx-1', invoice_ids: ['inv-1'], rejected_at: LATER }],
    })
    expect(trustVerdict(decision(), rejected)).toMatchObject({
      outcome: 'disagreed',
      decision: 'rejected the suggestion',
    })
    const later = inputs({ allocations: [allocation({ made_by: 'engine', rule: 'reference', actor: null })] })
    expect(trustVerdict(decision(), later).outcome).toBe('applied_later')
  })
})

describe('trustVerdict of a would-be return', () => {
  const returned = decision({
    kind: 'return',
    transaction_id: 'out-1',
    amount: '100',
    decision: {
      allocations: [],
      return: {
        inflowTransactionId: 'tx-1',
        amount: '100',
        partial: false,
        target: null,
        inflowKeeps: '0',
        evidence: [],
      },
      reasons: [],
    },
  })

  it('agrees when a person took the money off the invoices, disagrees when they kept it', () => {
    const unmatched = inputs({ manualMatches: [match('inv-1', '0')] })
    expect(trustVerdict(returned, unmatched).outcome).toBe('agreed')
    const kept = inputs({ allocations: [allocation({})], manualMatches: [match('inv-1', '100')] })
    expect(trustVerdict(returned, kept).outcome).toBe('disagreed')
    expect(trustVerdict(returned, inputs()).outcome).toBe('open')
  })
})

describe('undoneByPerson', () => {
  const engine = [{ invoice_id: 'inv-1', amount: '100' }]

  it('is null without a person’s match after the settlement, or when the line pays the same', () => {
    expect(undoneByPerson('tx-1', engine, RECORDED, inputs())).toBeNull()
    const same = inputs({ allocations: [allocation({})], manualMatches: [match('inv-1', '100')] })
    expect(undoneByPerson('tx-1', engine, RECORDED, same)).toBeNull()
  })

  it('names an unmatch and a match to another invoice', () => {
    expect(
      undoneByPerson('tx-1', engine, RECORDED, inputs({ manualMatches: [match('inv-1', '0')] })),
    ).toMatchObject({ decision: 'unmatched it', actors: ['carla'] })
    const other = inputs({
      allocations: [allocation({ invoice_id: 'inv-2' })],
      manualMatches: [match('inv-2', '100')],
    })
    expect(undoneByPerson('tx-1', engine, RECORDED, other)?.decision).toBe(
      'matched other invoices or amounts',
    )
  })
})

describe('sameAmounts', () => {
  it('compares decimals exactly and leaves zero amounts out', () => {
    const of = (entries: Array<[string, string]>) => new Map(entries.map(([id, v]) => [id, new Decimal(v)]))
    expect(
      sameAmounts(
        of([
          ['a', '1.10'],
          ['b', '0'],
        ]),
        of([['a', '1.1']]),
      ),
    ).toBe(true)
    expect(sameAmounts(of([['a', '1.10']]), of([['a', '1.100000000000000001']]))).toBe(false)
  })
})

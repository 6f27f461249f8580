import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/observability/index.js'
import { createMatchingService, type AutoApplyMode } from '../../src/matching/index.js'
import { createClosingService, unaccountedPayments } from '../../src/closing/index.js'
import { loadPaymentAccounting } from '../../src/store/index.js'
import type { Actor } from '../../src/users/index.js'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

const ADMIN: Actor = { name: 'ada', role: 'admin', kind: 'user' }
const CLERK: Actor = { name: 'carla', role: 'clerk', kind: 'user' }
const DAY = { from: '2026-03-01', to: '2026-03-31' }

let store: MatchingStore
let service: ReturnType<typeof createMatchingService>
let closing: ReturnType<typeof createClosingService>

beforeAll(async () => {
  store = await createMatchingStore('matching_shadow')
  service = createMatchingService({
    db: store.db,
    schema: store.schema,
    backend: { kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: `test-shadow-${store.schema}` },
    clock: store.clock,
    logger: silentLogger,
  })
  closing = createClosingService({
    db: store.db,
    schema: store.schema,
    clock: store.clock,
    matching: service,
  })
})
afterAll(async () => {
  await service?.close()
  await store?.drop()
})
beforeEach(async () => {
  await store.reset()
  await store.db.deleteFrom('shadow_decisions').execute()
  await store.db.deleteFrom('runtime_settings').execute()
})

const mode = (value: AutoApplyMode) => service.setAutoApplyMode(value, ADMIN)
const decisions = () => store.db.selectFrom('shadow_decisions').selectAll().orderBy('id').execute()
const accounted = async () => expect(unaccountedPayments(await loadPaymentAccounting(store.db))).toEqual([])

describe('shadow mode', () => {
  it('applies nothing, suggests what it would have applied and records it with its evidence', async () => {
    await mode('shadow')
    await store.invoice({ id: 'inv-1', number: 'INV-1001', amount: '100' })
    const tx = await store.pay({ amount: '100', paymentReference: 'INV-1001' })
    const summary = await store.run()
    expect(summary.heldBack).toBe(1)
    expect(await store.allocations()).toEqual([])
    expect(await store.state('inv-1')).toMatchObject({ status: 'open', amount_open: '100' })
    expect(await store.openExceptions()).toEqual([
      {
        key: `suggested_match:${tx}:inv-1`,
        type: 'suggested_match',
        transaction_id: tx,
        invoice_ids: ['inv-1'],
      },
    ])
    const [recorded] = await decisions()
    expect(recorded).toMatchObject({
      transaction_id: tx,
      kind: 'allocate',
      amount: '100',
      invoice_ids: ['inv-1'],
    })
    expect(recorded!.confidence).toBeGreaterThanOrEqual(85)
    expect(recorded!.decision.allocations[0]!.evidence.map((item) => item.code)).toEqual([
      'full_number',
      'amount_exact',
    ])
    await accounted()
    // A later run over the same line records nothing new and keeps the one suggestion.
    await store.invoice({ id: 'inv-1', number: 'INV-1001', amount: '100' })
    await store.run()
    expect(await decisions()).toHaveLength(1)
    expect(await store.openExceptions()).toHaveLength(1)
  })

  it('keeps an overpayment’s surplus in its own exception beside the suggestion: every amount accounted for', async () => {
    await mode('shadow')
    // A recognised payer: an overpayment from a stranger is only suggested, in any mode (issue 25 rule 2).
    await store.invoice({ id: 'inv-1', number: 'INV-7', amount: '100', customerName: 'Acme Ltd' })
    const tx = await store.pay({ amount: '120', paymentReference: 'INV-7', counterpartyName: 'ACME LTD' })
    await store.run()
    expect((await store.openExceptions()).map((row) => row.type).sort()).toEqual([
      'overpayment',
      'suggested_match',
    ])
    expect(await store.exception(`suggested_match:${tx}:inv-1`)).toMatchObject({ amount: '100' })
    await accounted()
  })

  it('counts a person’s same match as agreement and a rejection as a disagreement with the engine’s reasons', async () => {
    await mode('shadow')
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    await store.invoice({ id: 'inv-2', number: 'INV-2', amount: '50' })
    const agreed = await store.pay({ amount: '100', paymentReference: 'INV-1' })
    const rejected = await store.pay({ amount: '50', paymentReference: 'INV-2' })
    await store.run()
    await closing.acceptSuggestion(`suggested_match:${agreed}:inv-1`, CLERK)
    await closing.rejectSuggestion(`suggested_match:${rejected}:inv-2`, CLERK)
    expect(await store.allocations()).toMatchObject([
      { transaction_id: agreed, made_by: 'person', actor: 'carla' },
    ])
    // Rejected: the engine's proposal is not offered again; the money waits for a person.
    expect(await store.openExceptions()).toMatchObject([
      { type: 'unmatched_payment', transaction_id: rejected },
    ])
    await accounted()
    const report = await service.trustReport(DAY)
    expect(report.shadow).toMatchObject({ lines: 2, agreed: 1, disagreed: 1, open: 0, agreementRate: 0.5 })
    expect(report.shadow.disagreements).toMatchObject([
      {
        transactionId: rejected,
        engine: { invoices: [{ invoiceId: 'inv-2', number: 'INV-2', amount: '50' }] },
        person: { outcome: 'disagreed', decision: 'rejected the suggestion' },
      },
    ])
    expect(report.shadow.disagreements[0]!.engine.evidence.map((item) => item.code)).toContain('full_number')
    expect(report.shadow.disagreements[0]!.points).toBeGreaterThanOrEqual(85)
  })

  it('counts a match to another invoice as a disagreement, and an undecided line as open', async () => {
    await mode('shadow')
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    await store.invoice({ id: 'inv-9', number: 'INV-9', amount: '100' })
    const other = await store.pay({ amount: '100', paymentReference: 'INV-1' })
    await store.pay({ amount: '100', paymentReference: 'INV-9' })
    await store.run()
    await closing.manualMatch({ transactionId: other, invoiceId: 'inv-9' }, CLERK)
    const report = await service.trustReport(DAY)
    expect(report.shadow).toMatchObject({ lines: 2, agreed: 0, disagreed: 1, open: 1, agreementRate: 0 })
    expect(report.shadow.disagreements[0]!.person).toMatchObject({
      decision: 'matched other invoices or amounts',
      actors: ['carla'],
      now: [{ invoiceId: 'inv-9', amount: '100', madeBy: 'person' }],
    })
  })

  it('holds back a return: the payment keeps its invoice, the outflow asks a person, the report records it', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-7', amount: '250' })
    const paid = await store.pay({
      amount: '250',
      paymentReference: 'INV-7',
      counterpartyName: 'Acme',
      postedDate: '2026-03-01',
    })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({ status: 'paid' })
    await mode('shadow')
    store.clock.advance(60)
    // The engine's settlement made while automation was on stays in force when its set is matched again.
    const back = await store.pay({
      amount: '-250',
      description: 'RETURN AM04 insufficient funds',
      counterpartyName: 'ACME',
      postedDate: '2026-03-05',
    })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({ status: 'paid', amount_paid: '250' })
    expect(await store.openExceptions()).toMatchObject([
      {
        key: `ambiguous_reference:${back}:return-of-${paid}`,
        type: 'ambiguous_reference',
        invoice_ids: ['inv-1'],
      },
    ])
    expect(await decisions()).toMatchObject([{ transaction_id: back, kind: 'return', amount: '250' }])
    await accounted()
    // Automation on again: the next run that reaches the line returns it, as the engine does by itself.
    await mode('on')
    await store.pay({
      id: back,
      amount: '-250',
      description: 'RETURN AM04 insufficient funds',
      counterpartyName: 'ACME',
      postedDate: '2026-03-05',
    })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({ status: 'open' })
    const report = await service.trustReport(DAY)
    expect(report.shadow).toMatchObject({ lines: 1, appliedLater: 1, agreementRate: null })
    expect(report.automatic).toMatchObject({ lines: 1, returns: 1, returnsUndone: 0 })
  })

  it('holds back a partial return of a payment whose settlement it also holds: the suggestion keeps all of it', async () => {
    // The property's counterexample (seed 1422337952): the held suggestion was sized as if the held return had
    // been taken (235 of 250), so 15 of the payment was nowhere.
    await store.invoice({ id: 'inv-2', number: 'INV-1002', amount: '250.00', customerName: 'Acme Corp' })
    await mode('shadow')
    const paid = await store.pay({
      amount: '250.00',
      paymentReference: 'INV-1002',
      counterpartyName: 'Acme Corp',
    })
    await store.run()
    const back = await store.pay({
      amount: '-15.00',
      description: 'RETURN MD06 INV-1002',
      counterpartyName: 'Acme Corp',
    })
    await store.run()
    expect(await store.allocations()).toEqual([])
    expect(await store.openExceptions()).toEqual([
      expect.objectContaining({ key: `ambiguous_reference:${back}:return-of-${paid}` }),
      expect.objectContaining({ key: `suggested_match:${paid}:inv-2` }),
    ])
    expect(await decisions()).toMatchObject([
      { transaction_id: paid, kind: 'allocate', amount: '250' },
      { transaction_id: back, kind: 'return', amount: '15' },
    ])
    await accounted()
    await mode('on')
    await store.run()
    await accounted()
  })
})

describe('off mode', () => {
  it('suggests what the engine would apply and records nothing', async () => {
    await mode('off')
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    const tx = await store.pay({ amount: '100', paymentReference: 'INV-1' })
    await store.run()
    expect(await store.allocations()).toEqual([])
    expect(await store.openExceptions()).toMatchObject([{ type: 'suggested_match', transaction_id: tx }])
    expect(await decisions()).toEqual([])
  })
})

describe('on mode', () => {
  it('applies as before and reports the automatic settlements people undid', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    await store.invoice({ id: 'inv-2', number: 'INV-2', amount: '70' })
    const undone = await store.pay({ amount: '100', paymentReference: 'INV-1' })
    await store.pay({ amount: '70', paymentReference: 'INV-2' })
    await store.run()
    const [allocation] = (await store.allocations()).filter((row) => row.transaction_id === undone)
    expect(allocation).toMatchObject({ made_by: 'engine' })
    store.clock.advance(60)
    await closing.unmatch(String(allocation!.id), CLERK)
    const report = await service.trustReport(DAY)
    expect(report.automatic).toMatchObject({ lines: 2, undone: 1 })
    expect(report.automatic.undoneLines).toMatchObject([
      {
        transactionId: undone,
        engine: { invoices: [{ invoiceId: 'inv-1', amount: '100' }] },
        person: { decision: 'unmatched it', actors: ['carla'] },
      },
    ])
    expect(report.shadow.lines).toBe(0)
  })

  it('reads the mode at each run: the stored one over the environment’s, changed without a restart', async () => {
    expect(await service.autoApplyMode()).toMatchObject({ autoApply: 'on', source: 'environment' })
    await mode('shadow')
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    await store.pay({ amount: '100', paymentReference: 'INV-1' })
    await store.run()
    expect(await store.allocations()).toEqual([])
    await mode('on')
    await store.invoice({ id: 'inv-2', number: 'INV-2', amount: '40' })
    const next = await store.pay({ amount: '40', paymentReference: 'INV-2' })
    await store.run()
    expect((await store.allocations()).map((row) => row.transaction_id)).toContain(next)
    expect(await service.autoApplyMode()).toMatchObject({
      autoApply: 'on',
      source: 'stored',
      changedBy: 'ada',
    })
    const audit = await store.db
      .selectFrom('audit_log')
      .select(['actor', 'actor_role', 'payload'])
      .where('action', '=', 'matching.mode_changed')
      .orderBy('seq')
      .execute()
    expect(audit.slice(-2).map((row) => [row.actor, row.actor_role, row.payload])).toEqual([
      ['ada', 'admin', { from: 'on', to: 'shadow', previousSource: 'environment' }],
      ['ada', 'admin', { from: 'shadow', to: 'on', previousSource: 'stored' }],
    ])
  })
})

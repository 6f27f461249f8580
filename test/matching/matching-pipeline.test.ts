import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMatchingService } from '../../src/matching/index.js'
import { createClosingService } from '../../src/closing/index.js'
import { silentLogger } from '../../src/observability/index.js'
import { verifyAuditChain } from '../../src/store/index.js'
import type { Actor } from '../../src/users/index.js'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

const ALICE: Actor = { name: 'alice', role: 'clerk', kind: 'user' }
const BOB: Actor = { name: 'bob', role: 'approver', kind: 'user' }

let store: MatchingStore
let service: ReturnType<typeof createMatchingService>
let closing: ReturnType<typeof createClosingService>

beforeAll(async () => {
  store = await createMatchingStore('matching_pipeline')
  service = createMatchingService({
    db: store.db,
    schema: store.schema,
    backend: { kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: `test-matching-${store.schema}` },
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
})

describe('the store pipeline', () => {
  it('turns a partial payment and its rest, with mangled references, into partially_paid then paid', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-1001', amount: '100.00' })
    await store.run()
    await store.pay({ amount: '40', paymentReference: 'inv 1001' })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({
      status: 'partially_paid',
      amount_paid: '40',
      amount_open: '60',
    })
    store.clock.advance(60)
    await store.pay({ amount: '60', paymentReference: 'INV-0001001' })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({ status: 'paid', amount_paid: '100', amount_open: '0' })
    expect((await store.events()).map((event) => event.type)).toEqual([
      'invoice.partially_paid',
      'invoice.paid',
    ])
    expect(await store.openExceptions()).toEqual([])
  })

  it('records an overpayment: amountPaid is the amount, the surplus is amountOverpaid and an exception', async () => {
    // A recognised payer: an overpayment from a stranger is only suggested (issue 25 rule 2).
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100', customerName: 'Acme Ltd' })
    const tx = await store.pay({ amount: '120', paymentReference: 'INV-1', counterpartyName: 'ACME LTD' })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({
      status: 'overpaid',
      amount_paid: '100',
      amount_overpaid: '20',
    })
    const [exception] = await store.openExceptions()
    expect(exception).toMatchObject({ type: 'overpayment', transaction_id: tx, invoice_ids: ['inv-1'] })
    expect((await store.events('invoice.overpaid')).length).toBe(1)
  })

  it('holds pending money as tentative and settles it when the payment posts', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    const tx = await store.pay({ amount: '100', paymentReference: 'INV-1', status: 'pending' })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({
      status: 'open',
      amount_paid: '0',
      amount_pending: '100',
    })
    expect(await store.allocations()).toMatchObject([{ transaction_id: tx, settled: false }])
    store.clock.advance(60)
    await store.pay({ id: tx, amount: '100', paymentReference: 'INV-1', status: 'posted' })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({
      status: 'paid',
      amount_paid: '100',
      amount_pending: '0',
    })
    expect(await store.allocations()).toMatchObject([{ transaction_id: tx, settled: true }])
    const history = await store.db
      .selectFrom('allocations')
      .select(['settled', 'reversal_reason'])
      .orderBy('id')
      .execute()
    expect(history).toEqual([
      { settled: false, reversal_reason: 'superseded' },
      { settled: true, reversal_reason: null },
    ])
    expect((await store.events()).map((event) => event.type)).toEqual(['invoice.paid'])
  })

  it('reverses the allocations of a removed transaction and reopens the invoice', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    const tx = await store.pay({ amount: '100', paymentReference: 'INV-1' })
    await store.run()
    store.clock.advance(60)
    await store.remove(tx)
    await store.run()
    expect(await store.allocations()).toEqual([])
    expect(await store.state('inv-1')).toMatchObject({ status: 'open', amount_paid: '0' })
    const reversed = await store.db
      .selectFrom('allocations')
      .select('reversal_reason')
      .executeTakeFirstOrThrow()
    expect(reversed.reversal_reason).toBe('transaction_removed')
    expect((await store.events()).map((event) => event.type)).toEqual(['invoice.paid', 'invoice.reopened'])
    const refs = await store.db.selectFrom('transaction_references').selectAll().execute()
    expect(refs).toEqual([])
  })

  it('matches a payment that arrived before its invoice once the invoice is upserted, resolving its exception', async () => {
    const tx = await store.pay({ amount: '75', paymentReference: 'Order INV-2002 thanks' })
    await store.run()
    const key = `unmatched_payment:${tx}:`
    expect(await store.openExceptions()).toMatchObject([{ key, type: 'unmatched_payment' }])
    expect((await store.events('payment.unmatched')).length).toBe(1)
    await service.invoicesChanged(['inv-2'])
    await store.invoice({ id: 'inv-2', number: 'INV-2002', amount: '75' })
    await store.run()
    expect(await store.allocations()).toMatchObject([
      { transaction_id: tx, invoice_id: 'inv-2', rule: 'reference' },
    ])
    expect(await store.openExceptions()).toEqual([])
    expect(await store.exception(key)).toMatchObject({ resolution: 'matched' })
  })

  it('applies a manual match and an unmatch through the same run', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    const tx = await store.pay({ amount: '30', description: 'no reference here' })
    await store.run()
    await closing.manualMatch({ transactionId: tx, invoiceId: 'inv-1' }, ALICE)
    const [allocation] = await store.allocations()
    expect(allocation).toMatchObject({ invoice_id: 'inv-1', amount: '30', made_by: 'person', rule: 'manual' })
    expect(await store.exception(`unmatched_payment:${tx}:`)).toMatchObject({ resolution: 'manual_match' })
    expect(await store.state('inv-1')).toMatchObject({ status: 'partially_paid', amount_paid: '30' })

    await closing.unmatch(String(allocation!.id), ALICE)
    expect(await store.allocations()).toEqual([])
    expect(await store.state('inv-1')).toMatchObject({ status: 'open', amount_paid: '0' })
    expect(await store.exception(`unmatched_payment:${tx}:`)).toMatchObject({
      resolved_at: null,
      times_opened: 2,
    })
    const reversal = await store.db
      .selectFrom('allocations')
      .select('reversal_reason')
      .executeTakeFirstOrThrow()
    expect(reversal.reversal_reason).toBe('unmatched_by_person')
  })

  it('keeps each person’s name on the allocation their match made when another person adds one', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    await store.invoice({ id: 'inv-2', number: 'INV-2', amount: '50' })
    const tx = await store.pay({ amount: '150', description: 'two invoices, no reference' })
    await store.run()
    await closing.manualMatch({ transactionId: tx, invoiceId: 'inv-1' }, ALICE)
    await closing.manualMatch({ transactionId: tx, invoiceId: 'inv-2' }, BOB)
    const rows = await store.allocations()
    expect(rows.map((row) => [row.invoice_id, row.actor])).toEqual([
      ['inv-1', 'alice'],
      ['inv-2', 'bob'],
    ])
    const match = await store.db
      .selectFrom('manual_matches')
      .select(['actor', 'actor_role'])
      .where('invoice_id', '=', 'inv-2')
      .executeTakeFirstOrThrow()
    expect(match).toEqual({ actor: 'bob', actor_role: 'approver' })
  })

  it('keeps a manual unmatch of an engine allocation: the engine does not match it again', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    const tx = await store.pay({ amount: '100', paymentReference: 'INV-1' })
    await store.run()
    const [allocation] = await store.allocations()
    await closing.unmatch(String(allocation!.id), ALICE)
    await store.pay({
      id: tx,
      amount: '100',
      paymentReference: 'INV-1',
      updatedAt: '2026-03-03T00:00:00.000Z',
    })
    await store.run()
    expect(await store.allocations()).toEqual([])
    expect(await store.state('inv-1')).toMatchObject({ status: 'open' })
  })

  describe('suggestions', () => {
    async function suggested() {
      await store.invoice({
        id: 'inv-a',
        number: 'A-1',
        amount: '250',
        customerName: 'Acme Ltd',
        issueDate: '2026-01-01',
      })
      const tx = await store.pay({ amount: '250', counterpartyName: 'ACME LIMITED', description: 'payment' })
      await store.run()
      const [exception] = await store.openExceptions()
      expect(exception).toMatchObject({ type: 'suggested_match', transaction_id: tx, invoice_ids: ['inv-a'] })
      expect(await store.allocations()).toEqual([])
      return { tx, key: exception!.key }
    }

    it('allocates an accepted suggestion as a person’s match and resolves it', async () => {
      const { tx, key } = await suggested()
      await closing.acceptSuggestion(key, BOB)
      expect(await store.allocations()).toMatchObject([
        { transaction_id: tx, invoice_id: 'inv-a', amount: '250', made_by: 'person' },
      ])
      expect(await store.exception(key)).toMatchObject({ resolution: 'manual_match' })
      expect(await store.state('inv-a')).toMatchObject({ status: 'paid' })
    })

    it('records who accepted: the allocation and the audit entries name the person and role', async () => {
      const { key } = await suggested()
      const before = await store.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .executeTakeFirstOrThrow()
      await closing.acceptSuggestion(key, BOB)
      expect(await store.allocations()).toMatchObject([{ made_by: 'person', actor: 'bob' }])
      const entries = await store.db
        .selectFrom('audit_log')
        .select(['actor', 'actor_role', 'action'])
        .where('seq', '>', before.seq ?? '0')
        .where('action', 'in', ['suggestion.accepted', 'allocation.created'])
        .orderBy('seq')
        .execute()
      expect(entries).toEqual([
        { actor: 'bob', actor_role: 'approver', action: 'suggestion.accepted' },
        { actor: 'bob', actor_role: 'approver', action: 'allocation.created' },
      ])
      expect(await verifyAuditChain(store.db)).toMatchObject({ ok: true })
    })

    it('never makes a rejected suggestion again: the payment becomes unmatched', async () => {
      const { tx, key } = await suggested()
      await closing.rejectSuggestion(key, BOB)
      expect(await store.exception(key)).toMatchObject({ resolution: 'rejected' })
      expect(await store.openExceptions()).toMatchObject([{ type: 'unmatched_payment', transaction_id: tx }])
      expect(await store.allocations()).toEqual([])
    })
  })

  it('raises ambiguous_reference for a number two live invoices share, and allocates nothing', async () => {
    await store.invoice({ id: 'inv-x', number: 'INV-7', amount: '10', entityId: 'e1' })
    await store.invoice({ id: 'inv-y', number: 'INV-7', amount: '10', entityId: 'e2' })
    const tx = await store.pay({ amount: '10', paymentReference: 'INV 7' })
    await store.run()
    expect(await store.openExceptions()).toMatchObject([
      { type: 'ambiguous_reference', transaction_id: tx, invoice_ids: ['inv-x', 'inv-y'] },
    ])
    expect(await store.allocations()).toEqual([])
  })

  it('raises currency_mismatch when the named invoice is in another currency', async () => {
    await store.invoice({ id: 'inv-e', number: 'INV-9', amount: '10', currency: 'EUR' })
    const tx = await store.pay({ amount: '10', currency: 'USD', paymentReference: 'INV-9' })
    await store.run()
    expect(await store.openExceptions()).toMatchObject([{ type: 'currency_mismatch', transaction_id: tx }])
    expect(await store.allocations()).toEqual([])
  })

  it('treats a payment for a void invoice as unmatched', async () => {
    await store.invoice({ id: 'inv-v', number: 'INV-5', amount: '10' })
    await store.db.updateTable('invoices').set({ voided_at: store.clock.now() }).execute()
    await store.pay({ amount: '10', paymentReference: 'INV-5' })
    await store.run()
    expect(await store.openExceptions()).toMatchObject([
      { type: 'unmatched_payment', invoice_ids: ['inv-v'] },
    ])
  })

  it('sends no second event when the same changes are applied again', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    const tx = await store.pay({ amount: '100', paymentReference: 'INV-1' })
    await store.run()
    await store.pay({ id: tx, amount: '100', paymentReference: 'INV-1' })
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    await store.run()
    expect((await store.events()).map((event) => event.type)).toEqual(['invoice.paid'])
    const reversed = await store.db
      .selectFrom('allocations')
      .select('id')
      .where('reversed_at', 'is not', null)
      .execute()
    expect(reversed).toEqual([])
  })
})

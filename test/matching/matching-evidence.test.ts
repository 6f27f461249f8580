import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createCustomers } from '../../src/customers/index.js'
import { silentLogger } from '../../src/observability/index.js'
import { runCli } from '../../src/cli/index.js'
import { createMatchingService } from '../../src/matching/index.js'
import { createClosingService, dryRunMatching, unaccountedPayments } from '../../src/closing/index.js'
import { matchConfig, rfCheckDigits } from '../../src/matcher/index.js'
import { loadPaymentAccounting } from '../../src/store/index.js'
import type { Actor } from '../../src/users/index.js'
import { testIo } from '../cli/test-io.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

const CLERK: Actor = { name: 'carla', role: 'clerk', kind: 'user' }

let store: MatchingStore
let service: ReturnType<typeof createMatchingService>
let closing: ReturnType<typeof createClosingService>

beforeAll(async () => {
  store = await createMatchingStore('matching_evidence')
  service = createMatchingService({
    db: store.db,
    schema: store.schema,
    backend: { kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: `test-evidence-${store.schema}` },
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

const customers = () => createCustomers({ store: { db: store.db }, clock: store.clock })

describe('evidence through the store pipeline', () => {
  it('stores every allocation with its evidence', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-1001', amount: '100' })
    await store.pay({ amount: '100', paymentReference: 'INV-1001' })
    await store.run()
    const [row] = await store.db.selectFrom('allocations').select('evidence').execute()
    expect(row!.evidence.map((item) => item.code)).toEqual(['full_number', 'amount_exact'])
  })

  it('suggests a number core found without corroboration, with its reasons, and applies nothing', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-2024-0102', amount: '250' })
    const tx = await store.pay({ amount: '99', paymentReference: 'Rechnung 2024-0102' })
    await store.run()
    expect(await store.allocations()).toEqual([])
    const exception = await store.exception(`suggested_match:${tx}:inv-1`)
    expect(exception!.details.evidence.map((item: { code: string }) => item.code)).toContain('uncorroborated')
  })

  it('learns the payer’s account from a person’s match, then applies the next payment from it by amount', async () => {
    await customers().upsert({ id: 'cus_1', name: 'Acme Trading GmbH' })
    await store.invoice({ id: 'inv-1', number: 'A-1', amount: '80', customerId: 'cus_1' })
    await store.invoice({ id: 'inv-2', number: 'A-2', amount: '45', customerId: 'cus_1' })
    const first = await store.pay({
      amount: '80',
      description: 'payment',
      counterpartyName: 'J. SMITH',
      counterpartyAccountMasked: 'DE44 **** **** **** **77 11',
    })
    await store.run()
    expect(await store.allocations()).toEqual([])
    await closing.manualMatch({ transactionId: first, invoiceId: 'inv-1' }, CLERK)
    const learned = await customers().get('cus_1')
    expect(learned!.learned.map((link) => [link.kind, link.value])).toEqual([
      ['account', 'DE44 **** **** **** **77 11'],
      ['name', 'J. SMITH'],
    ])
    store.clock.advance(60)
    const second = await store.pay({
      amount: '45',
      description: 'payment',
      counterpartyAccountMasked: 'DE44 **** **** **** **77 11',
    })
    await store.run()
    expect(await store.allocations()).toMatchObject(
      [
        { transaction_id: first, invoice_id: 'inv-1', made_by: 'person' },
        { transaction_id: second, invoice_id: 'inv-2', made_by: 'engine', rule: 'payer' },
      ].sort((a, b) => (a.transaction_id < b.transaction_id ? -1 : 1)),
    )
  })

  it('reverses a returned payment’s allocation, reopens the invoice, explains it, and undoes it on reject', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-7', amount: '250' })
    const paid = await store.pay({
      amount: '250',
      paymentReference: 'INV-7',
      counterpartyName: 'Acme',
      postedDate: '2026-03-01',
    })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({ status: 'paid' })
    store.clock.advance(60)
    const back = await store.pay({
      amount: '-250',
      description: 'RETURN AM04 insufficient funds',
      counterpartyName: 'ACME',
      postedDate: '2026-03-05',
    })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({ status: 'open', amount_paid: '0' })
    const key = `payment_returned:${back}:${paid}`
    const exception = await store.exception(key)
    expect(exception).toMatchObject({ type: 'payment_returned', invoice_ids: ['inv-1'], resolved_at: null })
    expect(exception!.details.reasons.join(' ')).toContain('AM04: insufficient funds')
    const reversed = await store.db
      .selectFrom('allocations')
      .select('reversal_reason')
      .executeTakeFirstOrThrow()
    expect(reversed.reversal_reason).toBe('payment_returned')
    expect((await store.events()).map((event) => event.type)).toEqual(['invoice.paid', 'invoice.reopened'])

    await closing.rejectSuggestion(key, CLERK)
    expect(await store.state('inv-1')).toMatchObject({ status: 'paid' })
    expect(await store.exception(key)).toMatchObject({ resolution: 'rejected' })
  })

  it('takes a partial return off the invoice it names, keeps every amount accounted for, and undoes it on reject', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-8', amount: '250' })
    const paid = await store.pay({ amount: '250', paymentReference: 'INV-8', postedDate: '2026-03-01' })
    await store.run()
    store.clock.advance(60)
    const back = await store.pay({
      amount: '-100',
      description: 'RETURN MD06 INV-8',
      postedDate: '2026-03-05',
    })
    await store.run()
    expect(await store.state('inv-1')).toMatchObject({
      status: 'partially_paid',
      amount_paid: '150',
      amount_open: '100',
    })
    const key = `payment_returned:${back}:${paid}`
    expect(await store.exception(key)).toMatchObject({ invoice_ids: ['inv-1'], amount: '100' })
    expect((await store.allocations()).map((row) => [row.transaction_id, row.amount])).toEqual([
      [paid, '150'],
    ])
    expect(unaccountedPayments(await loadPaymentAccounting(store.db))).toEqual([])

    await closing.rejectSuggestion(key, CLERK)
    expect(await store.state('inv-1')).toMatchObject({ status: 'paid', amount_paid: '250' })
    expect(unaccountedPayments(await loadPaymentAccounting(store.db))).toEqual([])
  })

  it('reaches the payment a partial return quotes, and without an invoice to reopen asks a person', async () => {
    const paid = await store.pay({ amount: '400', paymentReference: 'ACME-778812', postedDate: '2026-03-01' })
    await store.run()
    store.clock.advance(60)
    const back = await store.pay({
      amount: '-40',
      description: 'CHARGEBACK ACME-778812',
      postedDate: '2026-03-05',
    })
    await store.run()
    expect((await store.openExceptions()).map((row) => row.key).sort()).toEqual(
      [`ambiguous_reference:${back}:return-of-${paid}`, `unmatched_payment:${paid}:`].sort(),
    )
    expect(unaccountedPayments(await loadPaymentAccounting(store.db))).toEqual([])
  })

  it.each([
    ['a whole return to the same payer', 'RETURN AM04', '-250', 'open'],
    ['a partial return naming the invoice', 'RETURN MD06 INV-8', '-50', 'partially_paid'],
    ['a partial chargeback quoting the payment', 'CHARGEBACK ACME-778812', '-50', 'partially_paid'],
  ])('finds %s whichever of the two arrives first (rule 9)', async (_label, description, amount, status) => {
    const outcomes = []
    for (const outflowFirst of [false, true]) {
      await store.reset()
      await store.invoice({ id: 'inv-1', number: 'INV-8', amount: '250' })
      const inflow = () =>
        store.pay({
          id: '00000000-0000-4000-8000-0000000000f1',
          amount: '250',
          paymentReference: description.includes('ACME') ? 'ACME-778812' : 'INV-8',
          counterpartyName: 'Acme',
          postedDate: '2026-03-01',
        })
      const outflow = () =>
        store.pay({
          id: '00000000-0000-4000-8000-0000000000f2',
          amount,
          description,
          counterpartyName: 'Acme',
          postedDate: '2026-03-05',
        })
      for (const write of outflowFirst ? [outflow, inflow] : [inflow, outflow]) {
        await write()
        await store.run()
      }
      const allocations = (await store.allocations()).map(({ id: _id, ...rest }) => rest)
      outcomes.push({ allocations, exceptions: await store.openExceptions() })
    }
    expect(outcomes[1]).toEqual(outcomes[0])
    if (!description.includes('ACME')) expect(await store.state('inv-1')).toMatchObject({ status })
    expect(outcomes[0]?.exceptions.map((row) => row.type)).toContain(
      description.includes('ACME') ? 'ambiguous_reference' : 'payment_returned',
    )
  })

  it('suggests the invoice that replaced a void one', async () => {
    await customers().upsert({ id: 'cus_1', name: 'Acme' })
    await store.invoice({ id: 'old', number: 'INV-90', amount: '330', customerId: 'cus_1' })
    await store.db
      .updateTable('invoices')
      .set({ voided_at: store.clock.now() })
      .where('id', '=', 'old')
      .execute()
    await store.invoice({ id: 'new', number: 'INV-91', amount: '330', customerId: 'cus_1' })
    const tx = await store.pay({ amount: '330', paymentReference: 'INV-90' })
    await store.run()
    const exception = await store.exception(`suggested_match:${tx}:new`)
    expect(exception!.details.reasons.join(' ')).toContain('replaced it')
  })
})

describe('dry run', () => {
  it('shows what a proposed threshold would apply, and writes nothing', async () => {
    await store.invoice({ id: 'inv-1', number: 'INV-2024-0103', amount: '480.50' })
    const body = '20240103'
    const tx = await store.pay({ amount: '10', paymentReference: `RF${rfCheckDigits(body)}${body}` })
    await store.run()
    expect((await store.openExceptions()).map((row) => row.type)).toEqual(['suggested_match'])
    const before = await store.db.selectFrom('audit_log').select('seq').execute()

    const present = await dryRunMatching(store.db, { config: matchConfig() })
    expect(present.results).toMatchObject([
      {
        transactionId: tx,
        now: { outcome: 'suggested_match' },
        proposed: { outcome: 'suggested_match' },
        changes: false,
      },
    ])
    const proposed = await dryRunMatching(store.db, {
      config: matchConfig(),
      proposed: { autoApplyThreshold: 70 },
    })
    expect(proposed.changes).toEqual({ applied: 1 })
    expect(proposed.results[0]).toMatchObject({
      proposed: { outcome: 'applied', invoiceIds: ['inv-1'] },
      changes: true,
    })

    const t = testIo({
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: store.schema,
      LOG_LEVEL: 'silent',
    })
    expect(await runCli(['match', '--dry-run', '--threshold', '70'], t.io)).toBe(0)
    expect(t.out()).toContain('1 would change (applied 1)')
    expect(await store.allocations()).toEqual([])
    expect(await store.db.selectFrom('audit_log').select('seq').execute()).toEqual(before)
  })
})

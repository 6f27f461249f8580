import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { verifyAuditChain } from '../../src/store/index.js'
import { ACCOUNT, createMatchingStore, OTHER_ACCOUNT, type MatchingStore } from './matching-fixture.js'

let store: MatchingStore

beforeAll(async () => {
  store = await createMatchingStore('matching_transfers', 3600)
})

afterAll(async () => {
  await store?.drop()
})

beforeEach(async () => {
  await store.reset()
})

async function completedTransfer(id: string, reference: string, amount: string): Promise<void> {
  const now = store.clock.now()
  await store.db
    .insertInto('transfers')
    .values({
      id,
      idempotency_key: `key-${id}`,
      request: JSON.stringify({}),
      request_fingerprint: 'f',
      client_reference: reference,
      amount,
      currency: 'USD',
      source_account_id: ACCOUNT,
      destination_account_id: OTHER_ACCOUNT,
      status: 'completed',
      completed_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute()
}

describe('transfer legs', () => {
  it('finds both legs by client reference and amount and tells the app once', async () => {
    await completedTransfer('tr-1', 'PAYROLL-0042', '500')
    const out = await store.pay({ amount: '-500', paymentReference: 'payroll 42', accountId: ACCOUNT })
    const inflow = await store.pay({ amount: '500', description: 'PAYROLL-0042', accountId: OTHER_ACCOUNT })
    await store.run()
    const legs = await store.db.selectFrom('transfer_legs').selectAll().executeTakeFirstOrThrow()
    expect(legs).toMatchObject({ outflow_transaction_id: out, inflow_transaction_id: inflow })
    expect((await store.events('transfer.legs_matched')).map((event) => event.payload)).toMatchObject([
      { transferId: 'tr-1', outflowTransactionId: out, inflowTransactionId: inflow },
    ])
    // The inflow leg is money between own accounts, not an unmatched customer payment.
    expect(await store.openExceptions()).toEqual([])
    await store.run()
    expect((await store.events('transfer.legs_matched')).length).toBe(1)
  })

  it('raises transfer_leg_missing once the window passed without a leg, and resolves it when the legs appear', async () => {
    await completedTransfer('tr-2', 'TR-77', '80')
    await store.run()
    expect(await store.openExceptions()).toEqual([])
    store.clock.advance(3601)
    await store.run()
    expect(await store.openExceptions()).toMatchObject([
      { key: 'transfer_leg_missing:tr-2', type: 'transfer_leg_missing' },
    ])
    await store.pay({ amount: '-80', paymentReference: 'TR-77', accountId: ACCOUNT })
    await store.pay({ amount: '80', paymentReference: 'TR 77', accountId: OTHER_ACCOUNT })
    await store.run()
    expect(await store.openExceptions()).toEqual([])
    expect(await store.exception('transfer_leg_missing:tr-2')).toMatchObject({ resolution: 'legs_matched' })
  })
})

describe('the audit log', () => {
  // Each test gets a chain of its own: a tampered chain stays broken.
  beforeEach(async () => {
    await store.drop()
    store = await createMatchingStore('matching_audit')
  })

  async function someHistory() {
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    const tx = await store.pay({ amount: '100', paymentReference: 'INV-1' })
    await store.run()
    store.clock.advance(10)
    await store.remove(tx)
    await store.run()
  }

  it('chains every change and verifies intact', async () => {
    await someHistory()
    const result = await verifyAuditChain(store.db)
    expect(result.ok).toBe(true)
    expect(result.entries).toBeGreaterThanOrEqual(4)
    const actions = await store.db.selectFrom('audit_log').select('action').orderBy('seq').execute()
    expect(actions.map((row) => row.action)).toEqual(
      expect.arrayContaining(['allocation.created', 'allocation.reversed', 'invoice.state_changed']),
    )
  })

  it('refuses UPDATE and DELETE', async () => {
    await someHistory()
    await expect(sql`update audit_log set actor = 'x'`.execute(store.db)).rejects.toThrow(/append-only/)
    await expect(sql`delete from audit_log`.execute(store.db)).rejects.toThrow(/append-only/)
  })

  it('reports the first entry a superuser changed behind the trigger', async () => {
    await someHistory()
    await store.db.transaction().execute(async (trx) => {
      await sql`alter table audit_log disable trigger audit_log_no_update_or_delete`.execute(trx)
      await sql`update audit_log set payload = jsonb_set(payload, '{amount}', '"1"') where seq = 2`.execute(
        trx,
      )
      await sql`alter table audit_log enable trigger audit_log_no_update_or_delete`.execute(trx)
    })
    const result = await verifyAuditChain(store.db)
    expect(result).toMatchObject({ ok: false, brokenSeq: '2' })
  })

  it('reports a deleted entry', async () => {
    await someHistory()
    await store.db.transaction().execute(async (trx) => {
      await sql`alter table audit_log disable trigger audit_log_no_update_or_delete`.execute(trx)
      await sql`delete from audit_log where seq = 3`.execute(trx)
      await sql`alter table audit_log enable trigger audit_log_no_update_or_delete`.execute(trx)
    })
    expect(await verifyAuditChain(store.db)).toMatchObject({ ok: false, brokenSeq: '4' })
  })
})

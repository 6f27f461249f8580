import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  getInvoice,
  listInvoices,
  upsertInvoice,
  upsertInvoices,
  voidInvoice,
  type InvoiceWrite,
} from '../../src/store/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'
import { withKeys } from '../../src/invoices/index.js'

let store: TestDatabase
const t0 = new Date('2026-03-01T10:00:00Z')
const t1 = new Date('2026-03-02T10:00:00Z')

beforeAll(async () => {
  store = await createTestDatabase('invoices_repo')
})
afterAll(async () => {
  await store.drop()
})

function invoice(id: string, extra: Partial<Omit<InvoiceWrite, 'keys'>> = {}): InvoiceWrite {
  return withKeys({ id, number: `INV-${id}`, amount: '100.00', currency: 'EUR', ...extra })
}

describe('invoices repo', () => {
  it('stores the number normalized by the matcher tokens and the customer names normalized', async () => {
    const { row, created } = await upsertInvoice(
      store.db,
      invoice('r1', {
        number: 'inv-0001001',
        customerName: 'Acme Ltd',
        customerAliases: ['ACME Trading', 'acme'],
      }),
      t0,
    )
    expect(created).toBe(true)
    expect(row.normalized_number).toBe('INV 1001')
    expect(row.customer_keys).toEqual(['acme', 'acme trading'])
    expect(row.amount).toBe('100.00')
    expect(row.version).toBe('1')
  })

  it('rewriting the same fields changes nothing; a real change bumps the version and updated_at', async () => {
    await upsertInvoice(store.db, invoice('r2'), t0)
    const same = await upsertInvoice(store.db, invoice('r2'), t1)
    expect(same).toMatchObject({ created: false, changed: false })
    expect(same.row.version).toBe('1')
    expect(same.row.updated_at).toEqual(t0)
    const changed = await upsertInvoice(store.db, invoice('r2', { amount: '120.50' }), t1)
    expect(changed).toMatchObject({ created: false, changed: true })
    expect(changed.row.version).toBe('2')
    expect(changed.row.updated_at).toEqual(t1)
    expect(changed.row.created_at).toEqual(t0)
  })

  it('a failing row in a batch writes none of the batch', async () => {
    await expect(
      upsertInvoices(store.db, [invoice('b1'), invoice('b2', { amount: '-1' })], t0),
    ).rejects.toThrow()
    expect(await getInvoice(store.db, 'b1')).toBeUndefined()
  })

  it('voiding keeps the row; writing it again reinstates it', async () => {
    await upsertInvoice(store.db, invoice('v1'), t0)
    const voided = await voidInvoice(store.db, 'v1', t1)
    expect(voided?.changed).toBe(true)
    expect((await getInvoice(store.db, 'v1'))?.voided_at).toEqual(t1)
    expect((await voidInvoice(store.db, 'v1', t1))?.changed).toBe(false)
    expect(await voidInvoice(store.db, 'missing', t1)).toBeUndefined()
    const again = await upsertInvoice(store.db, invoice('v1'), t1)
    expect(again.changed).toBe(true)
    expect(again.row.voided_at).toBeNull()
  })

  it('lists by customer name or alias, normalized, in id order with a keyset', async () => {
    await upsertInvoices(
      store.db,
      [
        invoice('c3', { customerName: 'Globex GmbH' }),
        invoice('c1', { customerName: 'Other', customerAliases: ['GLOBEX'] }),
        invoice('c2', { customerName: 'Initech' }),
      ],
      t0,
    )
    const rows = await listInvoices(store.db, { customerKey: 'globex', limit: 10 })
    expect(rows.map((row) => row.id)).toEqual(['c1', 'c3'])
    const after = await listInvoices(store.db, { customerKey: 'globex', afterId: 'c1', limit: 10 })
    expect(after.map((row) => row.id)).toEqual(['c3'])
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INVOICE_KEYS_VERSION, invoiceKeys, rekeyInvoices } from '../../src/invoices/index.js'
import { getInvoice, upsertInvoices } from '../../src/store/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let store: TestDatabase

beforeAll(async () => {
  store = await createTestDatabase('rekey_invoices')
})
afterAll(async () => {
  await store.drop()
})

describe('re-keying invoices', () => {
  it('makes again the keys an older version of the rules made, and leaves current ones and the version alone', async () => {
    const stale = {
      id: 'old',
      number: 'INV-0001001',
      amount: '10',
      currency: 'EUR',
      customerName: 'Müller GmbH',
    }
    const current = { id: 'new', number: 'INV-7', amount: '10', currency: 'EUR' }
    await upsertInvoices(
      store.db,
      [
        { ...stale, keys: { normalizedNumber: '', customerKeys: [], matchKeys: [], version: 0 } },
        { ...current, keys: invoiceKeys(current) },
      ],
      new Date('2026-03-01T10:00:00Z'),
    )

    expect(await rekeyInvoices(store.db)).toBe(1)

    const row = await getInvoice(store.db, 'old')
    const keys = invoiceKeys(stale)
    expect(row).toMatchObject({
      normalized_number: keys.normalizedNumber,
      customer_keys: keys.customerKeys,
      match_keys: keys.matchKeys,
      keys_version: INVOICE_KEYS_VERSION,
      version: '1',
    })
    expect(keys.matchKeys).toContain('INV 1001')
    expect(await rekeyInvoices(store.db)).toBe(0)
  })
})

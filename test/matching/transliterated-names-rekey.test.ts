import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { rekeyCustomers } from '../../src/customers/index.js'
import { INVOICE_KEYS_VERSION, invoiceKeys, rekeyInvoices } from '../../src/invoices/index.js'
import { getInvoice, upsertCustomers, upsertInvoices } from '../../src/store/index.js'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

// Before names were transliterated (customer keys version 1, invoice keys version 2), a Cyrillic name was keyed in
// Cyrillic: a bank writing it in Latin letters found no one until the stored keys are made again.
const CUSTOMER = 'ООО Ромашка'
const OLD_KEY = 'ооо ромашка'
const PAYER = 'OOO ROMASHKA'

let store: MatchingStore

beforeAll(async () => {
  store = await createMatchingStore('matching_transliterated_rekey')
})
afterAll(async () => {
  await store?.drop()
})
beforeEach(async () => {
  await store.reset()
})

const pay = () =>
  store.pay({ amount: '870.00', description: 'SEPA CREDIT TRANSFER', counterpartyName: PAYER })

async function suggestions() {
  return (await store.openExceptions()).filter((e) => e.type === 'suggested_match').map((e) => e.invoice_ids)
}

describe('keys stored before names were transliterated', () => {
  it('re-keys a customer keyed with the old folding and then matches its payer written in Latin letters', async () => {
    await upsertCustomers(
      store.db,
      [
        {
          id: 'cus_r',
          name: CUSTOMER,
          aliases: [],
          bankAccounts: [],
          nameKeys: [OLD_KEY],
          accountTails: [],
          keysVersion: 1,
        },
      ],
      store.clock.now(),
    )
    await store.invoice({ id: 'inv-r', number: 'R-2026-77', amount: '870.00', customerId: 'cus_r' })
    await store.run()
    await pay()
    await store.run()
    expect(await suggestions()).toEqual([])

    expect(await rekeyCustomers(store.db)).toBe(1)
    await store.run()
    expect(await suggestions()).toEqual([['inv-r']])
    expect(await rekeyCustomers(store.db)).toBe(0)
  })

  it('re-keys an invoice whose customer name was keyed with the old folding', async () => {
    const invoice = {
      id: 'inv-s',
      number: 'R-2026-78',
      amount: '870.00',
      currency: 'USD',
      customerName: CUSTOMER,
    }
    const current = invoiceKeys(invoice)
    await upsertInvoices(
      store.db,
      [{ ...invoice, keys: { ...current, customerKeys: [OLD_KEY], version: INVOICE_KEYS_VERSION - 1 } }],
      store.clock.now(),
    )

    expect(await rekeyInvoices(store.db)).toBe(1)
    expect(await getInvoice(store.db, 'inv-s')).toMatchObject({
      customer_keys: current.customerKeys,
      keys_version: INVOICE_KEYS_VERSION,
    })
    expect(current.customerKeys).toContain('ooo romashka')
    expect(await rekeyInvoices(store.db)).toBe(0)
  })
})

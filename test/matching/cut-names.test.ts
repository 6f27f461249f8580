import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createCustomers, rekeyCustomers } from '../../src/customers/index.js'
import { normalizeName } from '../../src/matcher/index.js'
import { upsertCustomers } from '../../src/store/index.js'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

// 43 characters: a bank writing ü as "ue" cuts it at 35 to "MUELLER MASCHINENBAU UND ANLAGENTEC".
const CUSTOMER = 'Müller Maschinenbau und Anlagentechnik GmbH'
const CUT_PAYER = 'MUELLER MASCHINENBAU UND ANLAGENTEC'

let store: MatchingStore

beforeAll(async () => {
  store = await createMatchingStore('matching_cut_names')
})
afterAll(async () => {
  await store?.drop()
})
beforeEach(async () => {
  await store.reset()
})

const customers = () => createCustomers({ store: { db: store.db }, clock: store.clock })

const payCut = () =>
  store.pay({ amount: '1234.56', description: 'SEPA CREDIT TRANSFER', counterpartyName: CUT_PAYER })

/** The customer's open invoice of the payment's amount. */
const invoiceOfCustomer = () =>
  store.invoice({ id: 'inv-m', number: 'R-2024-118', amount: '1234.56', customerId: 'cus_m' })

async function suggestions() {
  return (await store.openExceptions()).filter((e) => e.type === 'suggested_match').map((e) => e.invoice_ids)
}

describe('a payer whose name the bank cut at 35 characters', () => {
  it('finds the customer in the store and suggests its invoice of the amount (a name alone applies nothing)', async () => {
    await customers().upsert({ id: 'cus_m', name: CUSTOMER })
    await invoiceOfCustomer()
    await store.run()
    await payCut()
    await store.run()
    expect(await store.allocations()).toEqual([])
    expect(await suggestions()).toEqual([['inv-m']])
  })

  it('reaches a payment that came before the customer and its invoice (rule 9)', async () => {
    await payCut()
    await store.run()
    expect(await suggestions()).toEqual([])
    await customers().upsert({ id: 'cus_m', name: CUSTOMER })
    await invoiceOfCustomer()
    await store.run()
    expect(await suggestions()).toEqual([['inv-m']])
  })

  it('reaches it through an invoice that only names its customer', async () => {
    await payCut()
    await store.run()
    await store.invoice({
      id: 'inv-n',
      number: 'R-2024-119',
      amount: '1234.56',
      customerName: CUSTOMER,
    })
    await store.run()
    expect(await suggestions()).toEqual([['inv-n']])
  })

  it('re-keys a customer stored by an older version at start-up and matches the payments its new keys reach', async () => {
    await upsertCustomers(
      store.db,
      [
        {
          id: 'cus_m',
          name: CUSTOMER,
          aliases: [],
          bankAccounts: [],
          nameKeys: [normalizeName(CUSTOMER)],
          accountTails: [],
          keysVersion: 0,
        },
      ],
      store.clock.now(),
    )
    await invoiceOfCustomer()
    await store.run()
    await payCut()
    await store.run()
    expect(await suggestions()).toEqual([])

    expect(await rekeyCustomers(store.db)).toBe(1)
    await store.run()
    expect(await suggestions()).toEqual([['inv-m']])
    expect(await rekeyCustomers(store.db)).toBe(0)
  })
})

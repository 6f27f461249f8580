import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  activeAllocationsOfTransactions,
  deleteTransactionReferences,
  getCustomers,
  getInvoices,
  loadInvoicesById,
  loadInvoicesByNumber,
  loadInvoiceStates,
  loadMatchTransactions,
  upsertInvoices,
  upsertTransactions,
} from '../../src/store/index.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

// PostgreSQL binds at most 65,535 parameters per statement: an `in (…)` of more items failed the whole query
// (issue 26: a remittance CSV of 65,536 lines answered 500). Lists now travel as one array parameter.
const MANY = 70_000

let store: TestDatabase

beforeAll(async () => {
  store = await createTestDatabase('bind_limit')
  await upsertTransactions(store.db, [mirrorRow(1)])
  await upsertInvoices(
    store.db,
    [
      {
        id: 'inv-1',
        number: 'INV-1',
        amount: '10.00',
        currency: 'EUR',
        keys: { normalizedNumber: 'inv1', customerKeys: [], matchKeys: [], version: 1 } as never,
      },
    ],
    new Date(),
  )
})

afterAll(async () => {
  await store?.drop()
})

/** `MANY` ids of which one is real, the real one last. */
const many = (real: string) => [...Array.from({ length: MANY - 1 }, () => randomUUID()), real]

describe(`lookups by a list of more than 65,535 items (${MANY})`, () => {
  it('finds invoices by number, id and state, payments and their allocations', async () => {
    expect((await loadInvoicesByNumber(store.db, many('inv1'))).map((row) => row.id)).toEqual(['inv-1'])
    expect((await loadInvoicesById(store.db, many('inv-1'))).map((row) => row.id)).toEqual(['inv-1'])
    expect((await getInvoices(store.db, many('inv-1'))).map((row) => row.id)).toEqual(['inv-1'])
    expect(await loadInvoiceStates(store.db, many('inv-1'))).toEqual([])
    expect((await loadMatchTransactions(store.db, many(txId(1)))).map((row) => row.id)).toEqual([txId(1)])
    expect(await activeAllocationsOfTransactions(store.db, many(txId(1)))).toEqual([])
    expect(await getCustomers(store.db, many('cust-1'))).toEqual([])
    await expect(deleteTransactionReferences(store.db, many(txId(1)))).resolves.toBeUndefined()
  })

  it('an empty list matches nothing', async () => {
    expect(await loadInvoicesByNumber(store.db, [])).toEqual([])
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applySyncPage, saveStreamHead, upsertTransactions } from '../../src/store/index.js'
import { CONNECTION_A, mirrorRow, txId } from '../support/mirror-fixture.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let database: TestDatabase
const now = new Date('2026-03-02T09:00:00Z')

beforeAll(async () => {
  database = await createTestDatabase('sync_page_dates')
  await saveStreamHead(database.db, CONNECTION_A, 'c0', now)
  await database.db.updateTable('sync_streams').set({ cursor: 'c0' }).execute()
  await upsertTransactions(database.db, [
    mirrorRow(1, { posted_date: '2026-02-10' }),
    mirrorRow(2, { posted_date: '2026-02-20' }),
    mirrorRow(3, { posted_date: '2026-02-25' }),
  ])
})

afterAll(async () => {
  await database?.drop()
})

const page = (from: number, page: Pick<Parameters<typeof applySyncPage>[1], 'upserts' | 'deletes'>) =>
  applySyncPage(database.db, {
    connectionId: CONNECTION_A,
    from: `c${from}`,
    next: `c${from + 1}`,
    now,
    ...page,
  })

const dueFrom = async () =>
  (await database.db.selectFrom('balance_proof_due').select('due_from').executeTakeFirst())?.due_from ?? null

describe('applySyncPage: the dates a page replaced', () => {
  it('are none for a page of new transactions only', async () => {
    const applied = await page(0, { upserts: [mirrorRow(10, { posted_date: '2026-02-27' })], deletes: [] })
    expect(applied).toEqual({ deleted: 0, earliestPreviousPostedDate: null })
  })

  it('are the old dates of the transactions a page re-dated, not those of the new ones beside them', async () => {
    const applied = await page(1, {
      upserts: [mirrorRow(11, { posted_date: '2026-01-05' }), mirrorRow(2, { posted_date: '2026-03-01' })],
      deletes: [],
    })
    expect(applied).toEqual({ deleted: 0, earliestPreviousPostedDate: '2026-02-20' })
  })

  it('are the dates of the transactions a page removed, with those it re-dated', async () => {
    const applied = await page(2, {
      upserts: [mirrorRow(3, { posted_date: '2026-03-02' })],
      deletes: [txId(1)],
    })
    expect(applied).toEqual({ deleted: 1, earliestPreviousPostedDate: '2026-02-10' })
    // The balance proof is owed from the earliest day any page touched, old date or new.
    expect(await dueFrom()).toBe('2026-01-05')
  })
})

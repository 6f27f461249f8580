import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applySyncPage, encodeTransactionRows, saveStreamHead } from '../../src/store/index.js'
import { CONNECTION_A, mirrorRow, queuedEntries, txId } from '../support/mirror-fixture.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let database: TestDatabase
const now = new Date('2026-03-02T09:00:00Z')

beforeAll(async () => {
  database = await createTestDatabase('sync_page_encoded')
  await saveStreamHead(database.db, CONNECTION_A, 'c0', now)
  await database.db.updateTable('sync_streams').set({ cursor: 'c0' }).execute()
})

afterAll(async () => {
  await database?.drop()
})

const queued = () => queuedEntries(database.db)

describe('applySyncPage with rows encoded ahead of the write', () => {
  it('writes the same rows as unencoded ones, quoting what needs it, and queues every touched id once', async () => {
    const tricky = mirrorRow(2, { description: 'a "quoted" \\ back,slash {braced} ••4321', mcc: null })
    const upserts = encodeTransactionRows([mirrorRow(1, { posted_date: '2026-02-03' }), tricky])
    expect(upserts.ids).toEqual([txId(1), txId(2)])
    expect(upserts.earliestPostedDate).toBe('2026-02-03')
    const applied = await applySyncPage(database.db, {
      connectionId: CONNECTION_A,
      from: 'c0',
      next: 'c1',
      upserts,
      // An id both upserted and deleted, and one deleted twice, are queued once each.
      deletes: [txId(2), txId(7), txId(7)],
      now,
    })
    expect(applied).not.toBeNull()
    const rows = await database.db
      .selectFrom('transactions')
      .select(['id', 'description', 'mcc'])
      .orderBy('id')
      .execute()
    expect(rows.map((r) => [r.id, r.description, r.mcc])).toEqual([
      [txId(1), mirrorRow(1).description, mirrorRow(1).mcc ?? null],
      [txId(2), tricky.description, null],
    ])
    expect(await queued()).toEqual([txId(1), txId(2), txId(7)])
    const due = await database.db
      .selectFrom('balance_proof_due')
      .select(sql<string>`due_from::text`.as('from'))
      .executeTakeFirstOrThrow()
    expect(due.from).toBe('2026-02-03')
  })
})

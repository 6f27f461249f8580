import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applySyncPage, saveStreamHead, upsertTransactions } from '../../src/store/index.js'
import { CONNECTION_A, mirrorRow, queuedEntries, txId } from '../support/mirror-fixture.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let database: TestDatabase
const now = new Date('2026-03-02T09:00:00Z')

beforeAll(async () => {
  database = await createTestDatabase('sync_page')
  await saveStreamHead(database.db, CONNECTION_A, 'c0', now)
  await database.db.updateTable('sync_streams').set({ cursor: 'c0' }).execute()
  await upsertTransactions(database.db, [mirrorRow(9, { posted_date: '2026-02-14' })])
})

afterAll(async () => {
  await database?.drop()
})

const ids = async () =>
  (await database.db.selectFrom('transactions').select('id').orderBy('id').execute()).map((r) => r.id)
const queued = () => queuedEntries(database.db)
const cursor = async () =>
  (await database.db.selectFrom('sync_streams').select('cursor').executeTakeFirstOrThrow()).cursor

describe('applySyncPage', () => {
  it('writes the upserts, the deletes, the matching outbox and the new cursor together', async () => {
    const applied = await applySyncPage(database.db, {
      connectionId: CONNECTION_A,
      from: 'c0',
      next: 'c1',
      upserts: [mirrorRow(1), mirrorRow(2, { amount: '-0.10' })],
      deletes: [txId(9)],
      now,
    })
    expect(applied).toEqual({ deleted: 1, earliestPreviousPostedDate: '2026-02-14' })
    expect(await ids()).toEqual([txId(1), txId(2)])
    expect(await cursor()).toBe('c1')
    expect(await queued()).toEqual([txId(1), txId(2), txId(9)])
    const row = await database.db
      .selectFrom('transactions')
      .select('amount')
      .where('id', '=', txId(2))
      .executeTakeFirstOrThrow()
    expect(row.amount).toBe('-0.10')
  })

  it('writes nothing of a page whose stream is no longer at its cursor (compare-and-swap)', async () => {
    const outcome = await applySyncPage(database.db, {
      connectionId: CONNECTION_A,
      from: 'c0',
      next: 'c2',
      upserts: [mirrorRow(3)],
      deletes: [txId(1)],
      now,
    })
    expect(outcome).toBeNull()
    expect(await ids()).toEqual([txId(1), txId(2)])
    expect(await cursor()).toBe('c1')
    expect(await queued()).toEqual([txId(1), txId(2), txId(9)])
  })

  it('applies a page once when two workers write it at the same time', async () => {
    const write = () =>
      applySyncPage(database.db, {
        connectionId: CONNECTION_A,
        from: 'c1',
        next: 'c2',
        upserts: [mirrorRow(4)],
        deletes: [txId(2)],
        now,
      })
    const outcomes = await Promise.all([write(), write(), write()])
    expect(outcomes.filter((o) => o !== null)).toEqual([
      { deleted: 1, earliestPreviousPostedDate: '2026-03-01' },
    ])
    expect(await ids()).toEqual([txId(1), txId(4)])
    expect(await cursor()).toBe('c2')
    expect(await queued()).toEqual([txId(1), txId(2), txId(9), txId(4), txId(2)])
  })
})

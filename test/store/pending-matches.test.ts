import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import {
  applySyncPage,
  countPendingMatches,
  enqueueMatches,
  enqueueUnseenMatches,
  saveStreamHead,
  takePendingMatches,
} from '../../src/store/index.js'
import { CONNECTION_A, mirrorRow, txId } from '../support/mirror-fixture.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let database: TestDatabase
const now = new Date('2026-03-02T09:00:00Z')
let cursor = 0

beforeAll(async () => {
  database = await createTestDatabase('pending_matches')
})

afterAll(async () => {
  await database?.drop()
})

beforeEach(async () => {
  await sql`truncate pending_matches, transactions, sync_streams`.execute(database.db)
  cursor = 0
  await saveStreamHead(database.db, CONNECTION_A, 'c0', now)
  await database.db.updateTable('sync_streams').set({ cursor: 'c0' }).execute()
})

/** A sync page upserting transactions `upserts` and deleting `deletes`: matching's outbox gets it as one row. */
const syncPage = (upserts: number[], deletes: number[] = []) =>
  applySyncPage(database.db, {
    connectionId: CONNECTION_A,
    from: `c${cursor}`,
    next: `c${++cursor}`,
    upserts: upserts.map((n) => mirrorRow(n)),
    deletes: deletes.map(txId),
    now,
  })

const take = async (limit: number) =>
  (await database.db.transaction().execute((trx) => takePendingMatches(trx, limit))).pending.map(
    (p) => `${p.kind}:${p.entityId}`,
  )

describe('matching outbox with sync pages as one row each', () => {
  it('queues a page as one row and counts and takes it as its transactions, in order', async () => {
    await enqueueMatches(database.db, 'invoice', ['INV-1'])
    await syncPage([1, 2, 3], [9])
    await enqueueMatches(database.db, 'transaction', [txId(5)])
    expect(await database.db.selectFrom('pending_matches').select('seq').execute()).toHaveLength(3)
    expect(await countPendingMatches(database.db)).toBe(6)

    expect(await take(3)).toEqual(['invoice:INV-1', `transaction:${txId(1)}`, `transaction:${txId(2)}`])
    expect(await countPendingMatches(database.db)).toBe(3)
    expect(await take(2)).toEqual([`transaction:${txId(3)}`, `transaction:${txId(9)}`])
    expect(await take(10)).toEqual([`transaction:${txId(5)}`])
    expect(await countPendingMatches(database.db)).toBe(0)
  })

  it('reads the mirrored rows of the transactions it takes from a page', async () => {
    await syncPage([1, 2])
    const taken = await database.db.transaction().execute((trx) => takePendingMatches(trx, 10))
    expect(taken.rows.map((row) => row.id)).toEqual([txId(1), txId(2)])
  })

  it('puts back what a rolled-back take had taken of a page', async () => {
    await syncPage([1, 2, 3])
    await expect(
      database.db.transaction().execute(async (trx) => {
        await takePendingMatches(trx, 2)
        throw new Error('matching failed')
      }),
    ).rejects.toThrow('matching failed')
    expect(await countPendingMatches(database.db)).toBe(3)
    expect(await take(10)).toEqual([txId(1), txId(2), txId(3)].map((id) => `transaction:${id}`))
  })

  it('queues nothing for a page that touched no transaction', async () => {
    await syncPage([])
    expect(await countPendingMatches(database.db)).toBe(0)
    expect(await database.db.selectFrom('pending_matches').select('seq').execute()).toEqual([])
  })

  it('does not queue again, as never matched, a transaction a page row holds', async () => {
    await syncPage([1, 2])
    expect(await enqueueUnseenMatches(database.db, 100)).toBe(0)
    await take(10)
    expect(await enqueueUnseenMatches(database.db, 100)).toBe(2)
  })
})

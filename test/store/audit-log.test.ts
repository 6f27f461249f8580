import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendAudit, verifyAuditChain } from '../../src/store/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase('audit_log')
  const at = new Date('2026-03-02T09:00:00Z')
  const entry = { action: 'manual_match.created', entity: 'transaction', entityId: 't-1', payload: {} }
  // As entries were written before users existed, then as they are now.
  await appendAudit(database.db, at, [{ actor: 'person', ...entry }])
  await appendAudit(database.db, at, [{ actor: 'alice', actorRole: 'clerk', ...entry }])
  await appendAudit(database.db, at, [{ actor: 'engine', ...entry, action: 'allocation.created' }])
})

afterAll(async () => {
  await database?.drop()
})

/** Changes one entry the way only the table's owner can: with the append-only trigger off. */
async function tamper(change: ReturnType<typeof sql>): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    await sql`alter table audit_log disable trigger audit_log_no_update_or_delete`.execute(trx)
    await change.execute(trx)
    await sql`alter table audit_log enable trigger audit_log_no_update_or_delete`.execute(trx)
  })
}

describe('the audit chain with actor roles', () => {
  it('verifies entries without a role (older ones, the engine’s) beside entries with one', async () => {
    const rows = await database.db
      .selectFrom('audit_log')
      .select(['actor', 'actor_role'])
      .orderBy('seq')
      .execute()
    expect(rows).toEqual([
      { actor: 'person', actor_role: null },
      { actor: 'alice', actor_role: 'clerk' },
      { actor: 'engine', actor_role: null },
    ])
    expect(await verifyAuditChain(database.db)).toEqual({ ok: true, entries: 3 })
  })

  it('breaks when a role is changed, given to an entry that had none, or taken away', async () => {
    for (const [change, seq, undo] of [
      [
        sql`update audit_log set actor_role = 'admin' where seq = 2`,
        '2',
        sql`update audit_log set actor_role = 'clerk' where seq = 2`,
      ],
      [
        sql`update audit_log set actor_role = 'admin' where seq = 1`,
        '1',
        sql`update audit_log set actor_role = null where seq = 1`,
      ],
      [
        sql`update audit_log set actor_role = null where seq = 2`,
        '2',
        sql`update audit_log set actor_role = 'clerk' where seq = 2`,
      ],
    ] as const) {
      await tamper(change)
      expect(await verifyAuditChain(database.db)).toMatchObject({ ok: false, brokenSeq: seq })
      await tamper(undo)
      expect(await verifyAuditChain(database.db)).toMatchObject({ ok: true })
    }
  })
})

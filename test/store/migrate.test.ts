import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { assertSchemaName, createDatabase, migrateToLatest } from '../../src/store/index.js'
import { migrations } from '../../src/store/migrations/index.js'

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const schema = `test_migrate_${randomBytes(4).toString('hex')}`
const store = createDatabase({ connectionString: DATABASE_URL, schema })

afterAll(async () => {
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db)
  await store.db.destroy()
})

describe('migrations', () => {
  it('creates every mirror table in the configured schema', async () => {
    expect(await migrateToLatest(store.db, schema)).toEqual(Object.keys(migrations))
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = ${schema} order by table_name`.execute(
      store.db,
    )
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        'accounts',
        'connection_status_history',
        'connections',
        'daily_balances',
        'processed_events',
        'sync_requests',
        'sync_streams',
        'transactions',
      ]),
    )
  })

  it('applies nothing twice when several processes migrate at once', async () => {
    const others = [0, 1, 2].map(() => createDatabase({ connectionString: DATABASE_URL, schema }))
    try {
      const applied = await Promise.all(others.map((o) => migrateToLatest(o.db, schema)))
      expect(applied.flat()).toEqual([])
    } finally {
      await Promise.all(others.map((o) => o.db.destroy()))
    }
  })

  it('finds its own tables while other schemas are created and dropped at the same time', async () => {
    // Kysely's introspector named every schema in one query; one dropped meanwhile failed our migration (3F000).
    const churn = createDatabase({ connectionString: DATABASE_URL, schema: 'public' })
    let churning = true
    const churner = (async () => {
      while (churning) {
        const other = sql.id(`churn_${randomBytes(4).toString('hex')}`)
        await sql`create schema ${other}; create table ${other}.t (id serial, a int, b int)`.execute(churn.db)
        await sql`drop schema ${other} cascade`.execute(churn.db)
      }
    })()
    try {
      for (let round = 0; round < 4; round++) {
        const fresh = `test_migrate_churn_${randomBytes(4).toString('hex')}`
        const target = createDatabase({ connectionString: DATABASE_URL, schema: fresh })
        try {
          expect(await migrateToLatest(target.db, fresh)).toEqual(Object.keys(migrations))
        } finally {
          await sql`drop schema if exists ${sql.id(fresh)} cascade`.execute(target.db)
          await target.db.destroy()
        }
      }
    } finally {
      churning = false
      await churner
      await churn.db.destroy()
    }
  })

  it('keeps money exact and dates as calendar strings', async () => {
    await store.db
      .insertInto('daily_balances')
      .values({
        account_id: '00000000-0000-4000-8000-000000000001',
        date: '2026-03-01',
        connection_id: 'c',
        entity_id: 'e',
        currency: 'USD',
        ledger_balance: '12345678901234567890.12',
        posted_transaction_delta: '-0.10',
        source: 'bank',
        updated_at: new Date(),
      })
      .execute()
    const row = await store.db.selectFrom('daily_balances').selectAll().executeTakeFirstOrThrow()
    expect(row.ledger_balance).toBe('12345678901234567890.12')
    expect(row.posted_transaction_delta).toBe('-0.10')
    expect(row.date).toBe('2026-03-01')
  })

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => assertSchemaName('x; drop table y')).toThrow(/Invalid schema name/)
  })
})

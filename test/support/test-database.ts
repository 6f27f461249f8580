import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import pg from 'pg'
import type { QueueBackendConfig } from '../../src/queue/index.js'
import { createDatabase, migrateToLatest, type StoreDatabase } from '../../src/store/index.js'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
/** BANKREC_SECRET_KEY of every test process on the test database (required with DATABASE_URL); a test value only. */
export const TEST_SECRET_KEY = 'dGVzdC1vbmx5LWtleS1mb3ItYmFua3JlYy10ZXN0cyE='

export type TestDatabase = StoreDatabase & { drop(): Promise<void> }

/** A migrated schema of its own for one test file, dropped afterwards. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const schema = `test_${label.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`
  const store = createDatabase({ connectionString: TEST_DATABASE_URL, schema })
  await migrateToLatest(store.db, schema)
  return {
    ...store,
    async drop() {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db)
      await store.db.destroy()
    },
  }
}

/** Drops the schemas a sidecar made in the test database: its store's and, on the PostgreSQL queue, the queue's. */
export async function dropSidecarSchemas(...schemas: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    for (const schema of schemas) {
      await client.query(`drop schema if exists ${schema} cascade`)
      await client.query(`drop schema if exists ${schema}_queue cascade`)
    }
  } finally {
    await client.end()
  }
}

export type TestQueueDatabase = TestDatabase & { backend: Extract<QueueBackendConfig, { kind: 'postgres' }> }

/**
 * A test file's own schema, as createTestDatabase makes it, and the PostgreSQL queue backend beside it
 * (`<schema>_queue`, which the backend migrates when it first connects); drop() removes both.
 */
export async function createTestQueueDatabase(label: string): Promise<TestQueueDatabase> {
  const database = await createTestDatabase(label)
  const backend = {
    kind: 'postgres',
    connectionString: TEST_DATABASE_URL,
    schema: `${database.schema}_queue`,
  } as const
  return {
    ...database,
    backend,
    async drop() {
      await database.db.schema.dropSchema(backend.schema).ifExists().cascade().execute()
      await database.drop()
    },
  }
}

import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Database } from './database.js'

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** Schema names are interpolated into SQL, so only plain lower-case identifiers are accepted. */
export function assertSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `Invalid schema name ${JSON.stringify(schema)}: use lower-case letters, digits and underscores, starting with a letter.`,
    )
  }
  return schema
}

const DATE_OID = 1082

export type DatabaseOptions = {
  connectionString: string
  /** All of bankrec's tables live in this schema. @defaultValue 'bankrec' */
  schema?: string
  /** @defaultValue 10 */
  maxConnections?: number
}

export type StoreDatabase = { db: Kysely<Database>; pool: pg.Pool; schema: string }

/** A Kysely instance over a pg pool whose search_path is bankrec's schema. */
export function createDatabase(options: DatabaseOptions): StoreDatabase {
  const schema = assertSchemaName(options.schema ?? 'bankrec')
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    options: `-c search_path=${schema}`,
    types: {
      // DATE stays an ISO calendar string: a JS Date would shift it by the process's time zone.
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === DATE_OID
          ? (value: string) => value
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  })
  // An idle client whose connection dropped (server restart, killed session) is discarded by the pool and the next
  // query opens a new one; without a listener its 'error' event would crash the process.
  pool.on('error', () => undefined)
  // The same for a client checked out between two queries (Kysely holds one for a whole transaction): the
  // transaction's next query fails instead, and the pool discards the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined))
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool, schema }
}

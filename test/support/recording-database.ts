import { Kysely, PostgresDialect } from 'kysely'
import type pg from 'pg'
import type { Database } from '../../src/store/index.js'

/**
 * A store handle over `pool` (so over its schema) that records every statement it sends, trimmed, in `statements`:
 * tests count a stage's round trips with it. Callers mark hand-offs by pushing their own lines between.
 */
export function recordingDatabase(pool: pg.Pool, statements: string[]): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      statements.push(event.query.sql.trim())
    },
  })
}

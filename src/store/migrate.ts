import { Migrator, sql, type Kysely, type MigrationResultSet } from 'kysely'
import { assertSchemaName } from './create-database.js'
import type { Database } from './database.js'
import { migrations } from './migrations/index.js'
import { introspectingOnly } from './schema-introspector.js'

export class MigrationError extends Error {
  readonly code = 'migration_failed'
  constructor(
    message: string,
    readonly migrationName?: string,
  ) {
    super(message)
    this.name = 'MigrationError'
  }
}

/**
 * Brings the schema to the latest version. Safe to run from many processes at once: Kysely's migrator holds a
 * lock row while it runs, so one process applies and the others find nothing left to do.
 */
export async function migrateToLatest(db: Kysely<Database>, schema: string): Promise<string[]> {
  assertSchemaName(schema)
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db)
  const migrator = new Migrator({
    db: introspectingOnly(db.withSchema(schema), schema) as unknown as Kysely<unknown>,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: schema,
  })
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error) {
    throw new MigrationError(
      `Database migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}. ` +
        'Nothing of that migration was kept; fix the cause and run `bankrec migrate` again.',
      failed?.migrationName,
    )
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

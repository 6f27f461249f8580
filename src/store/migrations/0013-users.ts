import { sql, type Kysely } from 'kysely'

/**
 * Who did what: named users with a role and the SHA-256 of their token (never the token); the actor's role on
 * audit entries (hashed into new entries only, so older ones still verify); the person behind a manual match and
 * behind the allocation it produced.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) =>
      c.notNull().check(sql`role in ('viewer', 'clerk', 'approver', 'admin')`),
    )
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('revoked_by', 'text')
    .execute()
  // A name is one person while active; a removed user's row stays for the record and the name may be given again.
  await db.schema
    .createIndex('users_active_name')
    .on('users')
    .column('name')
    .unique()
    .where(sql.ref('revoked_at'), 'is', null)
    .execute()

  await db.schema.alterTable('audit_log').addColumn('actor_role', 'text').execute()
  await db.schema.alterTable('manual_matches').addColumn('actor', 'text').execute()
  await db.schema.alterTable('manual_matches').addColumn('actor_role', 'text').execute()
  await db.schema.alterTable('allocations').addColumn('actor', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('allocations').dropColumn('actor').execute()
  await db.schema.alterTable('manual_matches').dropColumn('actor_role').execute()
  await db.schema.alterTable('manual_matches').dropColumn('actor').execute()
  await db.schema.alterTable('audit_log').dropColumn('actor_role').execute()
  await db.schema.dropTable('users').execute()
}

import type { Kysely } from 'kysely'

/**
 * Webhook signing secrets sealed at rest (issue 17, finding 7): `secret_sealed` holds the AES-256-GCM sealed
 * secret and the plaintext column empties; rows from before are sealed when a process opens the store, since only
 * it holds the key (BANKREC_SECRET_KEY).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_registrations').addColumn('secret_sealed', 'text').execute()
  await db.schema
    .alterTable('webhook_registrations')
    .alterColumn('secret', (c) => c.dropNotNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_registrations').dropColumn('secret_sealed').execute()
}

import { sql, type Kysely } from 'kysely'
import type { Database } from './database.js'

/** Keeps the registration bankrec made (or updated) for its URL, with the secret the bank returned. */
export async function saveWebhookRegistration(
  db: Kysely<Database>,
  registration: { id: string; url: string; secret: string },
): Promise<void> {
  await db
    .insertInto('webhook_registrations')
    .values(registration)
    .onConflict((oc) =>
      oc
        .column('url')
        .doUpdateSet({ id: registration.id, secret: registration.secret, updated_at: sql`now()` }),
    )
    .execute()
}

export async function findWebhookRegistration(
  db: Kysely<Database>,
  url: string,
): Promise<{ id: string; url: string; secret: string } | undefined> {
  return db
    .selectFrom('webhook_registrations')
    .select(['id', 'url', 'secret'])
    .where('url', '=', url)
    .executeTakeFirst()
}

/** The registrations bankrec made, with the URL each was made for. */
export async function listWebhookRegistrations(
  db: Kysely<Database>,
): Promise<Array<{ id: string; url: string }>> {
  return db.selectFrom('webhook_registrations').select(['id', 'url']).orderBy('url').execute()
}

export async function deleteWebhookRegistration(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('webhook_registrations').where('id', '=', id).execute()
}

/** Every stored secret, newest first: the receiver accepts each (rotation). */
export async function storedWebhookSecrets(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_registrations')
    .select('secret')
    .orderBy('updated_at', 'desc')
    .execute()
  return rows.map((r) => r.secret)
}

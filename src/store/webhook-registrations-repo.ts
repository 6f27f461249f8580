import type { Kysely } from 'kysely'
import { sql } from 'kysely'
import type { Database } from './database.js'
import type { SecretBox } from './secret-box.js'

/**
 * Keeps the registration bankrec made (or updated) for its URL, with the secret the bank returned, sealed. A
 * registration it replaces for the URL is retired with it: its secret is overwritten, so accepted no more.
 */
export async function saveWebhookRegistration(
  db: Kysely<Database>,
  box: SecretBox,
  registration: { id: string; url: string; secret: string },
): Promise<void> {
  const sealed = box.seal(registration.secret)
  await db
    .insertInto('webhook_registrations')
    .values({ id: registration.id, url: registration.url, secret: null, secret_sealed: sealed })
    .onConflict((oc) =>
      oc
        .column('url')
        .doUpdateSet({ id: registration.id, secret: null, secret_sealed: sealed, updated_at: sql`now()` }),
    )
    .execute()
}

export async function findWebhookRegistration(
  db: Kysely<Database>,
  url: string,
): Promise<{ id: string; url: string } | undefined> {
  return db
    .selectFrom('webhook_registrations')
    .select(['id', 'url'])
    .where('url', '=', url)
    .executeTakeFirst()
}

/** The registrations bankrec made, with the URL each was made for. */
export async function listWebhookRegistrations(
  db: Kysely<Database>,
): Promise<Array<{ id: string; url: string }>> {
  return db.selectFrom('webhook_registrations').select(['id', 'url']).orderBy('url').execute()
}

/** Retires a registration at once: its secret (and a predecessor's in grace) is no longer accepted. */
export async function deleteWebhookRegistration(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('webhook_registrations').where('id', '=', id).execute()
}

/**
 * Every stored secret, newest first: the receiver accepts each (rotation). A secret that does not open with this
 * key (sealed with another BANKREC_SECRET_KEY) is left out and reported by registration id, never guessed at.
 */
export async function storedWebhookSecrets(
  db: Kysely<Database>,
  box: SecretBox,
  onUnreadable: (registrationId: string) => void = () => undefined,
): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_registrations')
    .select(['id', 'secret_sealed'])
    .where('secret_sealed', 'is not', null)
    .orderBy('updated_at', 'desc')
    .execute()
  return rows.flatMap((row) => {
    try {
      return [box.open(row.secret_sealed as string)]
    } catch {
      onUnreadable(row.id)
      return []
    }
  })
}

/**
 * A fingerprint of every stored registration's id and secret, in one cheap statement: it changes whenever a
 * secret is added, rotated, sealed or removed, so a reader can tell whether a re-read would find anything new.
 */
export async function webhookSecretsVersion(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ version: string }>`
    select md5(coalesce(string_agg(id || ':' || coalesce(secret_sealed, secret, ''), ',' order by id), ''))
      as version
    from webhook_registrations
  `.execute(db)
  return rows[0]!.version
}

/** Seals every secret still stored in plaintext (rows from before migration 0015); answers how many. */
export async function sealPlaintextWebhookSecrets(db: Kysely<Database>, box: SecretBox): Promise<number> {
  const rows = await db
    .selectFrom('webhook_registrations')
    .select(['id', 'secret'])
    .where('secret', 'is not', null)
    .execute()
  for (const row of rows) {
    await db
      .updateTable('webhook_registrations')
      .set({ secret_sealed: box.seal(row.secret as string), secret: null })
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .execute()
  }
  return rows.length
}

import type { Kysely } from 'kysely'
import type { BankClient } from '../api-client/index.js'
import { saveWebhookRegistration, type Database, type SecretBox } from '../store/index.js'
import { SUBSCRIBED_EVENTS, type WebhookRegistrationOutcome } from './register-webhook.js'

/**
 * Gives this sidecar's URL a new secret. The bank shows a secret only when a registration is created, so a new
 * registration is created and stored first and the old one deleted after: an event sent meanwhile reaches both,
 * and the receiver keeps only one copy (event ids are deduplicated). Saving the new one retires the old secret.
 */
export async function rotateWebhookSecret(
  client: BankClient,
  db: Kysely<Database>,
  box: SecretBox,
  url: string,
): Promise<WebhookRegistrationOutcome & { replaced: string[] }> {
  const created = await client.webhooks.create({ url, events: SUBSCRIBED_EVENTS, active: true })
  await saveWebhookRegistration(db, box, { id: created.id, url, secret: created.secret })
  const replaced: string[] = []
  for await (const registration of client.webhooks.listAll({ limit: 500 })) {
    if (registration.url !== url || registration.id === created.id) continue
    await client.webhooks.delete(registration.id)
    replaced.push(registration.id)
  }
  return { id: created.id, url, action: 'created', replaced }
}

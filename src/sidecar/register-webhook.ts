import type { Kysely } from 'kysely'
import { BankNotFoundError, type BankClient, type WebhookEventType } from '../api-client/index.js'
import {
  deleteWebhookRegistration,
  findWebhookRegistration,
  listWebhookRegistrations,
  saveWebhookRegistration,
  type Database,
  type SecretBox,
} from '../store/index.js'

/** The event types bankrec consumes (the reserved ones are subscribed too: they are acknowledged and recorded). */
export const SUBSCRIBED_EVENTS: WebhookEventType[] = [
  'connection.status_changed',
  'transactions.sync_available',
  'test',
  'account.created',
  'account.updated',
  'transfer.status_changed',
]

export type WebhookRegistrationOutcome = { id: string; url: string; action: 'created' | 'updated' }

/**
 * Registers this sidecar's webhook URL with the bank, or updates the registration it already has for that URL,
 * and stores the secret (sealed) for the receiver. The bank shows a secret only at creation, so a registration
 * whose secret bankrec does not hold is replaced by a new one. Registrations bankrec stored that the bank no longer
 * lists (of this bank: the same URL scheme) are retired: their secrets are accepted no more (issue 17, finding 7).
 */
export async function registerWebhook(
  client: BankClient,
  db: Kysely<Database>,
  box: SecretBox,
  url: string,
): Promise<WebhookRegistrationOutcome> {
  const known = await findWebhookRegistration(db, url)
  const listed = new Set<string>()
  let kept: string | undefined
  for await (const registration of client.webhooks.listAll({ limit: 500 })) {
    if (registration.url === url && registration.id !== known?.id) {
      await client.webhooks.delete(registration.id)
      continue
    }
    listed.add(registration.id)
    if (registration.url === url) kept = registration.id
  }
  let outcome: WebhookRegistrationOutcome
  if (kept) {
    await client.webhooks.update(kept, { events: SUBSCRIBED_EVENTS, active: true })
    outcome = { id: kept, url, action: 'updated' }
  } else {
    const created = await client.webhooks.create({ url, events: SUBSCRIBED_EVENTS, active: true })
    await saveWebhookRegistration(db, box, { id: created.id, url, secret: created.secret })
    listed.add(created.id)
    outcome = { id: created.id, url, action: 'created' }
  }
  // Only registrations of this bank: a real bank takes https only and the sandbox plain http (as in
  // retireOtherSandboxRegistrations), so a sandbox run never retires a real bank's registration kept in the database.
  const scheme = new URL(url).protocol
  for (const stored of await listWebhookRegistrations(db)) {
    if (!listed.has(stored.id) && new URL(stored.url).protocol === scheme) {
      await deleteWebhookRegistration(db, stored.id)
    }
  }
  return outcome
}

/**
 * Sandbox mode only, where the simulated bank delivers to this process alone: deletes the registrations bankrec
 * made for an earlier run's URL (another port), which the bank would retry in vain and whose secrets the receiver
 * would go on accepting. Only plain-http URLs are touched: a real bank takes https only, so a registration with a
 * real bank kept in the same database is never retired.
 */
export async function retireOtherSandboxRegistrations(
  client: BankClient,
  db: Kysely<Database>,
  currentId: string,
): Promise<string[]> {
  const retired: string[] = []
  for (const registration of await listWebhookRegistrations(db)) {
    if (registration.id === currentId || !registration.url.startsWith('http://')) continue
    await client.webhooks.delete(registration.id).catch((error: unknown) => {
      if (!(error instanceof BankNotFoundError)) throw error
    })
    await deleteWebhookRegistration(db, registration.id)
    retired.push(registration.url)
  }
  return retired
}

import type { Kysely } from 'kysely'
import { storedWebhookSecrets, webhookSecretsVersion, type Database, type SecretBox } from '../store/index.js'

export type WebhookSecrets = {
  /** Configured secrets first (WEBHOOK_SECRETS, newest first), then those bankrec registered itself. */
  current(): readonly string[]
  refresh(): Promise<void>
  /**
   * After a delivery no secret verified: resolves once a check that started after the call is done. The check is
   * one cheap statement (the registrations' fingerprint); only when it differs from the last read are the secrets
   * read again. One check runs at a time, and the misses arriving meanwhile share the next one, so a flood of
   * forged deliveries keeps at most one statement in flight and no delivery waits on a timer.
   */
  refreshOnMiss(): Promise<void>
  stop(): void
}

/**
 * The secrets the receiver accepts. `bankrec webhooks register` stores a new secret in the database; a running
 * sidecar re-reads them every few seconds, and when a delivery fails to verify and a registration changed since
 * its last read, so it needs no restart and refuses nothing signed with a secret stored a moment ago.
 */
export function createWebhookSecrets(
  db: Kysely<Database>,
  box: SecretBox,
  configured: readonly string[],
  options: {
    refreshEveryMs?: number
    /** A stored secret that does not open with this key (sealed with another BANKREC_SECRET_KEY). */
    onUnreadable?: (registrationId: string) => void
  } = {},
): WebhookSecrets {
  // The list every delivery reads, rebuilt only when a read changes it (the receiver keys its prepared HMAC keys
  // on it, so an unchanged list costs a delivery nothing).
  let current: readonly string[] = [...new Set(configured)]
  let readVersion: string | undefined
  let running: Promise<void> | undefined
  let queued: Promise<void> | undefined
  const refresh = async () => {
    // The fingerprint before the secrets: a change in between only costs one more read at the next miss.
    const version = await webhookSecretsVersion(db)
    const stored = await storedWebhookSecrets(db, box, options.onUnreadable)
    const next = [...new Set([...configured, ...stored])]
    if (next.join('\n') !== current.join('\n')) current = next
    readVersion = version
  }
  // Issue 26: every bad signature used to wait about a second for a re-read, changed or not.
  const check = async () => {
    if ((await webhookSecretsVersion(db)) !== readVersion) await refresh()
  }
  const refreshOnMiss = (): Promise<void> => {
    if (!running) {
      running = check()
        .catch(() => undefined)
        .finally(() => {
          running = undefined
        })
      return running
    }
    queued ??= running.then(() => {
      queued = undefined
      return refreshOnMiss()
    })
    return queued
  }
  const timer = setInterval(() => void refresh().catch(() => undefined), options.refreshEveryMs ?? 5_000)
  timer.unref()
  return {
    current: () => current,
    refresh,
    refreshOnMiss,
    stop: () => clearInterval(timer),
  }
}

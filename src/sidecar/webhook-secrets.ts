import type { Kysely } from 'kysely'
import { storedWebhookSecrets, type Database } from '../store/index.js'

export type WebhookSecrets = {
  /** Configured secrets first (WEBHOOK_SECRETS, newest first), then those bankrec registered itself. */
  current(): string[]
  refresh(): Promise<void>
  stop(): void
}

/**
 * The secrets the receiver accepts. `bankrec webhooks register` stores a new secret in the database; a running
 * sidecar re-reads them every few seconds, so it needs no restart.
 */
export function createWebhookSecrets(
  db: Kysely<Database>,
  configured: readonly string[],
  refreshEveryMs = 5_000,
): WebhookSecrets {
  let stored: string[] = []
  const refresh = async () => {
    stored = await storedWebhookSecrets(db)
  }
  const timer = setInterval(() => void refresh().catch(() => undefined), refreshEveryMs)
  timer.unref()
  return {
    current: () => [...new Set([...configured, ...stored])],
    refresh,
    stop: () => clearInterval(timer),
  }
}

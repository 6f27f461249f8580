import { setTimeout as delay } from 'node:timers/promises'
import type { Kysely } from 'kysely'
import { storedWebhookSecrets, type Database, type SecretBox } from '../store/index.js'

export type WebhookSecrets = {
  /** Configured secrets first (WEBHOOK_SECRETS, newest first), then those bankrec registered itself. */
  current(): string[]
  refresh(): Promise<void>
  /**
   * Re-reads the stored secrets after a delivery no secret verified: resolves once a read that started after the
   * call is done. Reads are at least `missRefreshMs` apart and shared, so a flood of forged deliveries costs one
   * query a second (each waits at most that long).
   */
  refreshOnMiss(): Promise<void>
  stop(): void
}

/**
 * The secrets the receiver accepts. `bankrec webhooks register` stores a new secret in the database; a running
 * sidecar re-reads them every few seconds, and at once when a delivery fails to verify, so it needs no restart and
 * refuses nothing signed with a secret stored a moment ago.
 */
export function createWebhookSecrets(
  db: Kysely<Database>,
  box: SecretBox,
  configured: readonly string[],
  options: {
    refreshEveryMs?: number
    missRefreshMs?: number
    /** A stored secret that does not open with this key (sealed with another BANKREC_SECRET_KEY). */
    onUnreadable?: (registrationId: string) => void
  } = {},
): WebhookSecrets {
  const missRefreshMs = options.missRefreshMs ?? 1_000
  let stored: string[] = []
  let lastReadAt = Number.NEGATIVE_INFINITY
  let next: Promise<void> | undefined
  const refresh = async () => {
    lastReadAt = Date.now()
    stored = await storedWebhookSecrets(db, box, options.onUnreadable)
  }
  const timer = setInterval(() => void refresh().catch(() => undefined), options.refreshEveryMs ?? 5_000)
  timer.unref()
  return {
    current: () => [...new Set([...configured, ...stored])],
    refresh,
    refreshOnMiss() {
      // Every miss waits for a read that starts after it (so it sees a secret stored just before), and misses
      // share that read: at most one read per interval, however many deliveries fail.
      next ??= delay(Math.max(0, lastReadAt + missRefreshMs - Date.now())).then(() => {
        next = undefined
        return refresh().catch(() => undefined)
      })
      return next
    },
    stop: () => clearInterval(timer),
  }
}

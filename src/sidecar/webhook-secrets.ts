import type { Kysely } from 'kysely'
import { storedWebhookSecrets, type Database } from '../store/index.js'

export type WebhookSecrets = {
  /** Configured secrets first (WEBHOOK_SECRETS, newest first), then those bankrec registered itself. */
  current(): string[]
  refresh(): Promise<void>
  /**
   * Re-reads the stored secrets after a delivery no secret verified, at most once per `missRefreshMs`; concurrent
   * callers share one read, and a call within the interval resolves at once (a flood of forged deliveries costs
   * one query a second).
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
  configured: readonly string[],
  options: { refreshEveryMs?: number; missRefreshMs?: number; nowMs?: () => number } = {},
): WebhookSecrets {
  const nowMs = options.nowMs ?? Date.now
  const missRefreshMs = options.missRefreshMs ?? 1_000
  let stored: string[] = []
  let lastReadAt = Number.NEGATIVE_INFINITY
  let reading: Promise<void> | undefined
  const refresh = async () => {
    lastReadAt = nowMs()
    stored = await storedWebhookSecrets(db)
  }
  const timer = setInterval(() => void refresh().catch(() => undefined), options.refreshEveryMs ?? 5_000)
  timer.unref()
  return {
    current: () => [...new Set([...configured, ...stored])],
    refresh,
    refreshOnMiss() {
      if (reading) return reading
      if (nowMs() - lastReadAt < missRefreshMs) return Promise.resolve()
      reading = refresh()
        .catch(() => undefined)
        .finally(() => (reading = undefined))
      return reading
    },
    stop: () => clearInterval(timer),
  }
}

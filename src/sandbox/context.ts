import type { VirtualClock } from '../clock/index.js'
import type { SandboxDialect } from './dialects.js'
import type { Random } from './random.js'
import type { Scheduler } from './scheduler.js'
import type { SandboxState } from './state.js'

export type SandboxSettings = {
  seed: number
  /** Accept http:// webhook URLs on loopback (tests and the demo). */
  allowHttpWebhooks: boolean
  /** Seconds between a transaction change and its transactions.sync_available delivery. */
  syncAvailableDelaySeconds: number
  /** Seconds between the bank's own scheduled syncs of each active connection; 0 turns them off. */
  scheduledSyncIntervalSeconds: number
  /** Seconds a connection sync runs before it completes. */
  syncDurationSeconds: number
  /** Seconds from setupCompletion to kind=ready, status active. */
  activationSeconds: number
  /** Cooldown after any sync, manual or scheduled (seed: 45 minutes). */
  syncCooldownSeconds: number
  /** Transfers above this amount wait in pending_bank_approval. */
  transferApprovalThreshold: string
  /** Seconds between automatic transfer status steps. */
  transferStepSeconds: number
  /**
   * Whether the bank makes up activity of its own: the initial sync's history and new lines, settlements and
   * removals on later syncs. Off, only the control API changes transactions (the demo story).
   */
  generatedActivity: boolean
  /**
   * The wire dialect of sync events and webhook envelopes (docs/sandbox.md, "Dialects"); the control API can
   * switch it while the sandbox runs.
   */
  dialect: SandboxDialect
}

/** What every part of the sandbox works with: one state, one clock, one random source, one timeline. */
export type SandboxContext = {
  state: SandboxState
  clock: VirtualClock
  random: Random
  scheduler: Scheduler
  settings: SandboxSettings
  /** Queues a webhook event for every active registration of the org subscribed to its type. */
  emitEvent(orgId: string, type: string, data: Record<string, unknown>): void
  /** Called by the ledger after any transaction change; schedules one transactions.sync_available. */
  noteTransactionsChanged(connectionId: string): void
}

/** Fault injection settings (PUT /_sandbox/faults replaces them whole). Rates are probabilities 0–1. */
export type FaultSettings = {
  api: { errorRate: number; rateLimitRate: number; retryAfterSeconds: number; latencyMs: number }
  webhooks: { duplicateRate: number; dropRate: number; reorder: boolean; delayMs: number }
}

export const NO_FAULTS: FaultSettings = {
  api: { errorRate: 0, rateLimitRate: 0, retryAfterSeconds: 1, latencyMs: 0 },
  webhooks: { duplicateRate: 0, dropRate: 0, reorder: false, delayMs: 0 },
}

/** What the control API needs beyond the context. */
export type SandboxRuntime = {
  ctx: SandboxContext
  faults: FaultSettings
  setFaults(faults: FaultSettings): void
  /** Runs every due bank task and attempts every due webhook delivery. */
  catchUp(): Promise<void>
  /** Sends pending sync notices and attempts every pending delivery now, ignoring back-off. */
  flushWebhooks(): Promise<void>
  /** Back to the seeded start: same keys, same catalog, nothing else. */
  reset(): void
}

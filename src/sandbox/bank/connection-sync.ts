import { ApiError } from '../api-error.js'
import type { SandboxContext } from '../context.js'
import { addTransaction, modifyTransaction, removeTransaction } from '../ledger.js'
import type { ConnectionRecord } from '../state.js'
import { toIsoDate } from './iso-date.js'
import { planHistory, planSync } from './plan-sync.js'
import { randomStream } from './random-stream.js'
import { scheduleStep } from './timeline.js'

export type SyncTrigger = 'initial' | 'manual' | 'scheduled'

/** Seconds left of the cooldown that follows the start of any sync, manual or scheduled; 0 when none. */
export function cooldownRemaining(
  ctx: SandboxContext,
  record: ConnectionRecord,
  at = ctx.clock.now(),
): number {
  if (!record.lastSyncStartedAt) return 0
  const endsMs = record.lastSyncStartedAt.getTime() + ctx.settings.syncCooldownSeconds * 1000
  return Math.max(0, Math.ceil((endsMs - at.getTime()) / 1000))
}

/**
 * PUT /v1/connections/{id}/sync. Seed: 409 while in setup, 409 while a sync runs, 429 with Retry-After within
 * the cooldown after any sync. A ready connection that is not active cannot sync either (409
 * connection_not_active): it needs attention first, or the service is retrying on its own.
 */
export function requestSync(ctx: SandboxContext, record: ConnectionRecord): void {
  if (record.kind === 'setup') {
    throw new ApiError(
      409,
      'connection_in_setup',
      'The connection is still in setup; complete setup and wait for kind=ready before requesting a sync.',
    )
  }
  if (record.syncStatus === 'syncing') {
    throw new ApiError(
      409,
      'sync_in_progress',
      'A sync of this connection is already running; wait for it to finish.',
    )
  }
  if (record.status !== 'active') {
    throw new ApiError(
      409,
      'connection_not_active',
      `The connection is ${record.status}; only an active connection can sync.`,
    )
  }
  const remaining = cooldownRemaining(ctx, record)
  if (remaining > 0) {
    throw new ApiError(
      429,
      'sync_cooldown',
      `A sync started less than ${ctx.settings.syncCooldownSeconds / 60} minutes ago; retry in ${remaining} seconds.`,
      undefined,
      { 'Retry-After': String(remaining) },
    )
  }
  startSync(ctx, record, 'manual', ctx.clock.now())
}

/** Starts a sync at `at`; it completes settings.syncDurationSeconds later. */
export function startSync(
  ctx: SandboxContext,
  record: ConnectionRecord,
  trigger: SyncTrigger,
  at: Date,
): void {
  record.syncStatus = 'syncing'
  record.lastSyncStartedAt = at
  record.updatedAt = at
  scheduleStep(ctx, at, ctx.settings.syncDurationSeconds, `connection sync (${trigger})`, (done) =>
    finishSync(ctx, record.id, trigger, done),
  )
}

/**
 * Schedules the end of a sync that was running when the sandbox's state was saved (resumeScheduledWork): due
 * where it was, settings.syncDurationSeconds after the sync started.
 */
export function resumeRunningSync(ctx: SandboxContext, record: ConnectionRecord): void {
  const trigger: SyncTrigger = record.lastSyncedAt === null ? 'initial' : 'scheduled'
  const startedAt = record.lastSyncStartedAt ?? ctx.clock.now()
  scheduleStep(ctx, startedAt, ctx.settings.syncDurationSeconds, `connection sync (${trigger})`, (done) =>
    finishSync(ctx, record.id, trigger, done),
  )
}

/**
 * The bank reports its changes through the ledger, so they enter every sync stream, then the connection is idle
 * with a fresh lastSyncedAt and one transactions.sync_available goes out. A connection that stopped being active
 * meanwhile ends the sync without changes.
 */
function finishSync(ctx: SandboxContext, connectionId: string, trigger: SyncTrigger, now: Date): void {
  const record = ctx.state.connections.get(connectionId)
  if (!record || record.syncStatus !== 'syncing') return
  record.syncStatus = 'idle'
  record.updatedAt = now
  if (record.status !== 'active') return
  if (ctx.settings.generatedActivity) reportActivity(ctx, record, trigger, now)
  record.lastSyncedAt = now
  ctx.emitEvent(record.orgId, 'transactions.sync_available', {
    connectionId: record.id,
    entityId: record.entityId,
  })
}

function reportActivity(
  ctx: SandboxContext,
  record: ConnectionRecord,
  trigger: SyncTrigger,
  now: Date,
): void {
  const connectionId = record.id
  const today = toIsoDate(now)
  const accounts = [...ctx.state.accounts.values()].filter((a) => a.connectionId === connectionId)
  const random = randomStream(ctx, `activity:${connectionId}`)
  if (trigger === 'initial') {
    const openingDate = accounts.reduce((min, a) => (a.openingDate < min ? a.openingDate : min), today)
    for (const transaction of planHistory(random, accounts, openingDate, today)) {
      addTransaction(ctx, transaction, { notify: false })
    }
  } else {
    const transactions = [...ctx.state.transactions.values()].filter((t) => t.connectionId === connectionId)
    const plan = planSync(random, {
      accounts,
      transactions,
      lastSyncDate: record.lastSyncedAt ? toIsoDate(record.lastSyncedAt) : null,
      today,
    })
    for (const transaction of plan.added) addTransaction(ctx, transaction, { notify: false })
    for (const { id, changes } of plan.changed) modifyTransaction(ctx, id, changes, { notify: false })
    for (const id of plan.removed) removeTransaction(ctx, id, { notify: false })
  }
}

/**
 * The bank's own syncs every settings.scheduledSyncIntervalSeconds (0: none) for as long as the connection
 * exists. A scheduled sync runs only for an active, idle connection outside the cooldown, and starts a cooldown
 * of its own; otherwise that round is skipped.
 */
export function scheduleRegularSyncs(ctx: SandboxContext, connectionId: string, from: Date): void {
  const interval = ctx.settings.scheduledSyncIntervalSeconds
  if (interval <= 0) return
  scheduleStep(ctx, from, interval, 'scheduled connection sync', (at) => {
    const record = ctx.state.connections.get(connectionId)
    if (!record) return
    if (
      record.status === 'active' &&
      record.syncStatus === 'idle' &&
      cooldownRemaining(ctx, record, at) === 0
    ) {
      startSync(ctx, record, 'scheduled', at)
    }
    scheduleRegularSyncs(ctx, connectionId, at)
  })
}

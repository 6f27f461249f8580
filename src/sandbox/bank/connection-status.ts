import type { ConnectionStatus } from '../../api-client/index.js'
import type { SandboxContext } from '../context.js'
import type { ConnectionRecord } from '../state.js'
import { setupStep } from './setup-step.js'
import { scheduleStep } from './timeline.js'

/** How long an errored connection stays errored before the service's automatic retry brings it back. */
export const ERRORED_RECOVERY_SECONDS = 15 * 60

/** The error a status carries when none is given (the control API may set its own). */
export const DEFAULT_ERRORS: Partial<Record<ConnectionStatus, { code: string; message: string }>> = {
  reauthRequired: {
    code: 'reauth_required',
    message: 'The bank rejected the delegated user’s credentials; submit the current password.',
  },
  errored: {
    code: 'bank_unavailable',
    message: 'The bank portal did not respond; the service retries automatically.',
  },
  invalidConfig: {
    code: 'invalid_config',
    message: 'The delegated user lacks the permissions the connection needs; correct them at the bank.',
  },
  paused: { code: 'maintenance', message: 'Syncing is paused for bank maintenance.' },
  revoked: { code: 'access_revoked', message: 'Access to the bank workspace was removed.' },
}

/**
 * Moves a connection to a status. Every change emits connection.status_changed. Entering active clears the
 * error fields; entering errored schedules the service's automatic recovery.
 */
export function setConnectionStatus(
  ctx: SandboxContext,
  record: ConnectionRecord,
  status: ConnectionStatus,
  error: { code?: string | null; message?: string | null } = {},
  now: Date = ctx.clock.now(),
): void {
  const previousStatus = record.status
  const fallback = DEFAULT_ERRORS[status]
  if (status === 'active' || status === 'draft' || status === 'pendingActivation') {
    record.errorCode = error.code ?? null
    record.errorMessage = error.message ?? null
  } else {
    record.errorCode = error.code ?? fallback?.code ?? null
    record.errorMessage = error.message ?? fallback?.message ?? null
  }
  record.updatedAt = now
  if (previousStatus === status) return
  record.status = status
  record.statusChangedAt = now
  refreshSetupStep(record)
  ctx.emitEvent(record.orgId, 'connection.status_changed', {
    connectionId: record.id,
    entityId: record.entityId,
    previousStatus,
    status,
    errorCode: record.errorCode,
    errorMessage: record.errorMessage,
  })
  if (status === 'errored') scheduleRecovery(ctx, record.id, now)
}

/** The service's automatic retry of an errored connection, for the spell of errored that began at `since`. */
export function scheduleRecovery(ctx: SandboxContext, connectionId: string, since: Date): void {
  scheduleStep(ctx, since, ERRORED_RECOVERY_SECONDS, 'connection recovery', (at) => {
    const record = ctx.state.connections.get(connectionId)
    if (!record || record.status !== 'errored' || record.statusChangedAt?.getTime() !== since.getTime())
      return
    // A setup-stage connection goes back to where setup stood; a ready one to steady state.
    setConnectionStatus(ctx, record, record.kind === 'ready' ? 'active' : 'draft', {}, at)
  })
}

/** Recomputes setup.nextAction and setup.actionRequiredBy of a setup-stage connection. */
export function refreshSetupStep(record: ConnectionRecord): void {
  if (record.kind !== 'setup') return
  Object.assign(
    record.setup,
    setupStep({
      status: record.status,
      credentialsPresent: record.setup.credentialsPresent,
      instructions: record.setup.instructions,
    }),
  )
}

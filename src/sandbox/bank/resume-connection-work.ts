import type { SandboxContext } from '../context.js'
import { scheduleActivation } from './activate-connection.js'
import { scheduleProvisioning } from './connection-setup.js'
import { scheduleRecovery } from './connection-status.js'
import { resumeRunningSync, scheduleRegularSyncs } from './connection-sync.js'

/**
 * The bank's timeline lives in memory (scheduler.ts) while its state can be saved and loaded (state-file.ts). After
 * a load this puts back every connection step the saved state implies, due where it was due before:
 * - the delegated user's provisioning of a setup-stage connection still pending (from createdAt),
 * - the activation of a pendingActivation connection (from when it entered that status),
 * - the end of a sync that was running (from its start),
 * - the recovery of an errored connection (from when it entered errored),
 * - the scheduled syncs of every ready connection: the next one an interval after the last sync started, and
 *   after a long stop at most one catch-up round, not one per interval missed.
 * Steps already due run at the next catch-up. Transfers resume through transfer-lifecycle.ts.
 */
export function resumeConnectionWork(ctx: SandboxContext): void {
  const now = ctx.clock.now()
  for (const record of ctx.state.connections.values()) {
    const since = record.statusChangedAt ?? record.updatedAt
    if (record.kind === 'setup') {
      const { emailProvisioningStatus, phoneNumberProvisioningStatus } = record.setup.instructions
      if (emailProvisioningStatus !== 'provisioned' || phoneNumberProvisioningStatus !== 'provisioned')
        scheduleProvisioning(ctx, record, record.createdAt)
      if (record.status === 'pendingActivation') scheduleActivation(ctx, record, since)
    } else {
      if (record.syncStatus === 'syncing') resumeRunningSync(ctx, record)
      const intervalMs = ctx.settings.scheduledSyncIntervalSeconds * 1000
      const lastStart = (record.lastSyncStartedAt ?? since).getTime()
      scheduleRegularSyncs(ctx, record.id, new Date(Math.max(lastStart, now.getTime() - intervalMs)))
    }
    if (record.status === 'errored') scheduleRecovery(ctx, record.id, since)
  }
}

import { createHash } from 'node:crypto'
import type { SandboxContext } from '../context.js'
import type { ConnectionRecord } from '../state.js'
import { refreshSetupStep, setConnectionStatus } from './connection-status.js'
import { scheduleRegularSyncs, startSync } from './connection-sync.js'
import { generateAccounts } from './generate-accounts.js'
import { addDays, toIsoDate } from './iso-date.js'
import { portalHost } from './portal-url.js'
import { scheduleStep } from './timeline.js'

/** The sandbox's stand-in for a bad bank password: activation with it ends in reauthRequired. */
export const REJECTED_PASSWORD = 'wrong-password'

/** Days of history the initial sync backfills, drawn per connection. */
const HISTORY_DAYS: [number, number] = [60, 90]

/** After setupCompletion: the service activates the connection settings.activationSeconds later. */
export function scheduleActivation(ctx: SandboxContext, record: ConnectionRecord, from: Date): void {
  scheduleStep(ctx, from, ctx.settings.activationSeconds, 'connection activation', (at) => {
    const current = ctx.state.connections.get(record.id)
    if (current?.kind !== 'setup' || current.status !== 'pendingActivation') return
    if (current.passwordRejected) {
      current.setup.credentialsPresent = false
      refreshSetupStep(current)
      setConnectionStatus(ctx, current, 'reauthRequired', { code: 'invalid_credentials' }, at)
      return
    }
    activateConnection(ctx, current, at)
  })
}

/**
 * The bank side is ready: the connection becomes kind=ready and active, its accounts are discovered and the
 * initial historical sync starts at once. An unlisted bank gets an institution id derived from its portal host.
 */
export function activateConnection(ctx: SandboxContext, record: ConnectionRecord, at: Date): void {
  const random = ctx.random.fork(`accounts:${record.id}`)
  const openingDate = addDays(toIsoDate(at), -random.int(HISTORY_DAYS[0], HISTORY_DAYS[1]))
  if (!record.institutionId && record.portalUrl) {
    const host = portalHost(record.portalUrl)
    record.institutionId = `ins_unlisted_${createHash('sha256').update(host).digest('hex').slice(0, 12)}`
  }
  record.kind = 'ready'
  record.syncStatus = 'idle'
  record.lastSyncedAt = null
  for (const account of generateAccounts(random, record, openingDate))
    ctx.state.accounts.set(account.id, account)
  setConnectionStatus(ctx, record, 'active', {}, at)
  startSync(ctx, record, 'initial', at)
  scheduleRegularSyncs(ctx, record.id, at)
}

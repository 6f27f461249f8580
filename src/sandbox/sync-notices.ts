import type { SandboxContext } from './context.js'

/**
 * Coalesces transaction changes into one transactions.sync_available per connection, sent after a short delay
 * (or at once on flush), as the bank does after a sync.
 */
export function createSyncNotices(ctx: SandboxContext) {
  let waiting = new Set<string>()
  const send = (connectionId: string) => {
    if (!waiting.delete(connectionId)) return
    const connection = ctx.state.connections.get(connectionId)
    if (!connection) return
    ctx.emitEvent(connection.orgId, 'transactions.sync_available', {
      connectionId,
      entityId: connection.entityId,
    })
  }
  return {
    note(connectionId: string) {
      if (waiting.has(connectionId)) return
      waiting.add(connectionId)
      ctx.scheduler.after(ctx.settings.syncAvailableDelaySeconds, 'sync notice', () => send(connectionId))
    },
    sendAll() {
      for (const connectionId of [...waiting]) send(connectionId)
    },
    clear() {
      waiting = new Set()
    },
  }
}

import { ApiError } from '../api-error.js'
import type { SandboxContext } from '../context.js'
import { removeTransaction } from '../ledger.js'
import type { ConnectionRecord } from '../state.js'

/**
 * DELETE /v1/connections/{id}: a hard delete of the connection, its accounts and its transactions. Transactions
 * go through the ledger, so sync streams show a `removed` event for each, and one transactions.sync_available
 * tells mirrors to fetch them. While activation or a sync is running the connection cannot be represented
 * consistently (seed: 409), so the delete waits for them.
 */
export function deleteConnection(ctx: SandboxContext, record: ConnectionRecord): void {
  if (record.status === 'pendingActivation') {
    throw new ApiError(
      409,
      'delete_conflict',
      'The connection is being activated; delete it once activation has finished.',
    )
  }
  if (record.syncStatus === 'syncing') {
    throw new ApiError(
      409,
      'delete_conflict',
      'A sync of the connection is running; delete it once the sync is done.',
    )
  }
  let removed = 0
  for (const transaction of [...ctx.state.transactions.values()]) {
    if (transaction.connectionId !== record.id) continue
    removeTransaction(ctx, transaction.id, { notify: false })
    removed++
  }
  for (const account of [...ctx.state.accounts.values()]) {
    if (account.connectionId === record.id) ctx.state.accounts.delete(account.id)
  }
  ctx.state.connections.delete(record.id)
  if (removed > 0) {
    ctx.emitEvent(record.orgId, 'transactions.sync_available', {
      connectionId: record.id,
      entityId: record.entityId,
    })
  }
}

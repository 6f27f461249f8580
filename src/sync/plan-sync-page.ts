import type { SyncChange } from '../api-client/index.js'
import { transactionToRow, type TransactionRow } from '../store/index.js'

export type SyncPagePlan = {
  upserts: TransactionRow[]
  deletes: string[]
  /** The earliest posted date any event of the page touched: balances are re-read from there. */
  earliestPostedDate: string | null
}

/**
 * What a page of sync events (read from any dialect) does to the mirror: added and modified upsert by transaction
 * id, removed deletes (seed rule 3). Events apply in stream order, so for an id named twice the later event wins.
 */
export function planSyncPage(events: readonly SyncChange[]): SyncPagePlan {
  const finalState = new Map<string, { kind: 'upsert'; row: TransactionRow } | { kind: 'delete' }>()
  let earliestPostedDate: string | null = null
  for (const event of events) {
    const id = event.transaction.id
    finalState.delete(id)
    if (event.type === 'removed') {
      finalState.set(id, { kind: 'delete' })
    } else {
      finalState.set(id, { kind: 'upsert', row: transactionToRow(event.transaction, event.eventId) })
    }
    const posted = event.transaction.postedDate
    if (posted && (earliestPostedDate === null || posted < earliestPostedDate)) earliestPostedDate = posted
  }
  const upserts: TransactionRow[] = []
  const deletes: string[] = []
  for (const [id, outcome] of finalState) {
    if (outcome.kind === 'upsert') upserts.push(outcome.row)
    else deletes.push(id)
  }
  return { upserts, deletes, earliestPostedDate }
}

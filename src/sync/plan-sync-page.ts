import type { SyncChange, Transaction } from '../api-client/index.js'
import type { TransactionRow } from '../store/index.js'

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

/** Bank transaction (API shape) → mirror row. Fields a sparse or partial answer left out are stored as null. */
export function transactionToRow(
  tx: Transaction,
  lastEventId: string | null,
  backfillRun: string | null = null,
): TransactionRow {
  return {
    id: tx.id,
    connection_id: tx.connectionId,
    account_id: tx.accountId,
    posted_date: tx.postedDate ?? null,
    updated_at: tx.updatedAt ?? null,
    amount: tx.amount ?? null,
    currency: tx.currency ?? null,
    description: tx.description ?? null,
    raw_description: tx.rawDescription ?? null,
    customer_reference: tx.customerReference ?? null,
    bank_reference: tx.bankReference ?? null,
    payment_reference: tx.paymentReference ?? null,
    bai_code: tx.baiCode ?? null,
    category: tx.category ?? null,
    subcategory: tx.subcategory ?? null,
    mcc: tx.mcc ?? null,
    merchant_name: tx.merchantName ?? null,
    counterparty_name: tx.counterpartyName ?? null,
    counterparty_account_masked: tx.counterpartyAccountMasked ?? null,
    status: tx.status ?? null,
    entry_type: tx.entryType ?? null,
    rail: tx.rail ?? null,
    last_event_id: lastEventId,
    backfill_run: backfillRun,
  }
}

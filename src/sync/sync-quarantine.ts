import type { Kysely } from 'kysely'
import { SYNC_EVENT_PROBLEMS, readSyncEvent } from '../api-client/index.js'
import type { SyncQuarantineIncident } from '../alerts/index.js'
import type { Clock } from '../clock/index.js'
import {
  applySyncPage,
  findException,
  openException,
  openQuarantine,
  openQuarantineProblems,
  resolveException,
  resolveQuarantine,
  transactionToRow,
  type Database,
} from '../store/index.js'
import type { SyncSource } from './sync-source.js'

/** The exception key of one kind of problem: one exception per kind, over every connection. */
export const quarantineExceptionKey = (problem: string) => `sync_event:${problem}`

/**
 * Re-checks a connection's quarantined sync events at the start of a later sync. An event that now reads, or that
 * names its transaction, is settled by reading that transaction from the bank as it is now (the stream is a
 * current mirror, so its latest state is the truth): upserted, or deleted when the bank no longer has it. One
 * naming no transaction stays until a backfill (a restarted stream) covers it.
 * @returns how many were settled and remain, and the earliest posted date the settled ones touched (balances are
 *   re-read from there)
 */
export async function recheckQuarantine(
  deps: { db: Kysely<Database>; source: SyncSource; clock: Clock },
  connectionId: string,
  cursor: string,
): Promise<{ settled: number; remaining: number; earliestPostedDate: string | null }> {
  let settled = 0
  let earliestPostedDate: string | null = null
  const rows = await openQuarantine(deps.db, connectionId)
  for (const row of rows) {
    const reading = readSyncEvent(parseRaw(row.raw))
    const transactionId = reading.ok ? reading.change.transaction.id : row.transaction_id
    if (transactionId === null) continue
    const transaction = await deps.source.getTransaction(transactionId)
    await deps.db.transaction().execute(async (trx) => {
      // The same cursor on both sides: the write happens only while no other worker moved the stream.
      const applied = await applySyncPage(trx, {
        connectionId,
        from: cursor,
        next: cursor,
        upserts: transaction ? [transactionToRow(transaction, row.event_id)] : [],
        deletes: transaction ? [] : [transactionId],
        now: deps.clock.now(),
      })
      if (applied === null) return
      await resolveQuarantine(trx, { ids: [row.id] }, transaction ? 'refetched' : 'deleted', deps.clock.now())
      settled++
      for (const date of [applied.earliestPreviousPostedDate, transaction?.postedDate])
        if (date && (earliestPostedDate === null || date < earliestPostedDate)) earliestPostedDate = date
    })
  }
  return { settled, remaining: rows.length - settled, earliestPostedDate }
}

function parseRaw(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/**
 * Brings the exceptions in line with the quarantine: an open exception per kind of problem with quarantined
 * events, resolved once none is left.
 * @returns the kinds whose exception this call opened for the first time: operations hear of a kind once, while
 *   its exception may reopen in the queue whenever such events come back
 */
export async function syncQuarantineExceptions(
  db: Kysely<Database>,
  details: ReadonlyMap<string, string>,
  now: Date,
): Promise<SyncQuarantineIncident[]> {
  const open = await openQuarantineProblems(db)
  const opened: SyncQuarantineIncident[] = []
  for (const [problem, count] of open) {
    const key = quarantineExceptionKey(problem)
    const existing = await findException(db, key)
    if (existing && existing.resolved_at === null) continue
    const detail = details.get(problem) ?? existing?.details.reasons[0] ?? problem
    const { row } = await openException(
      db,
      {
        key,
        type: 'unreadable_sync_event',
        transactionId: null,
        transferId: null,
        invoiceIds: [],
        amount: null,
        confidence: null,
        settled: false,
        reasons: [
          detail,
          `${count} sync event(s) held in quarantine (sync_quarantine); the next sync re-reads the transactions they name`,
        ],
        evidence: [],
      },
      existing,
      now,
    )
    if (row.times_opened === 1) opened.push({ problem, detail, open: count })
  }
  for (const problem of SYNC_EVENT_PROBLEMS) {
    if (!open.has(problem))
      await resolveException(db, quarantineExceptionKey(problem), 'quarantine_settled', now)
  }
  return opened
}

import type { Kysely } from 'kysely'
import {
  BankNotFoundError,
  SYNC_EVENT_PROBLEMS,
  readSyncEvent,
  type BankClient,
  type UnreadableSyncEvent,
} from '../api-client/index.js'
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
  type Database,
} from '../store/index.js'
import { transactionToRow } from './plan-sync-page.js'

// ── the quarantine: sync events that fit no dialect ─────────────────────────────────────────────────────────────

/** What the quarantine needs; a connection sync's deps (sync-connection.ts) are these and more. */
export type QuarantineDeps = {
  db: Kysely<Database>
  client: BankClient
  clock: Clock
  /**
   * Kinds of unreadable sync event whose exception has just opened: tell operations (once per kind). Called after
   * the quarantine rows are committed with their page.
   */
  onQuarantineProblems?(connectionId: string, problems: SyncQuarantineIncident[]): Promise<void> | void
}

/** The exception key of one kind of problem: one exception per kind, over every connection. */
export const quarantineExceptionKey = (problem: string) => `sync_event:${problem}`

/** The quarantine row of an event that fits no dialect, written with its page. */
export function toQuarantined(event: UnreadableSyncEvent) {
  return {
    eventId: event.eventId,
    transactionId: event.transactionId,
    problem: event.problem,
    detail: event.detail,
    raw: JSON.stringify(event.raw) ?? 'null',
  }
}

/** Opens (or resolves) the exceptions of the quarantine and hands newly opened kinds to the alert hook. */
export async function reportQuarantine(
  deps: QuarantineDeps,
  connectionId: string,
  unreadable: readonly UnreadableSyncEvent[],
): Promise<void> {
  const details = new Map(unreadable.map((event) => [event.problem, event.detail]))
  const opened = await syncQuarantineExceptions(deps.db, details, deps.clock.now())
  if (opened.length > 0) await deps.onQuarantineProblems?.(connectionId, opened)
}

/**
 * Re-checks a connection's quarantined sync events at the start of a later sync. An event that now reads, or that
 * names its transaction, is settled by reading that transaction from the bank as it is now (the stream is a
 * current mirror, so its latest state is the truth): upserted, or deleted when the bank no longer has it. One
 * naming no transaction stays until a backfill (a restarted stream) covers it.
 * @returns how many were settled and remain, and the earliest posted date the settled ones touched (balances are
 *   re-read from there)
 */
export async function recheckQuarantine(
  deps: QuarantineDeps,
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
    // The transaction as the bank has it now; null when it no longer exists.
    const transaction = await deps.client.transactions.get(transactionId).catch((error: unknown) => {
      if (error instanceof BankNotFoundError) return null
      throw error
    })
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

import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import {
  SYNC_EVENT_PROBLEMS,
  readSyncEvent,
  type SyncDialect,
  type UnreadableSyncEvent,
} from '../api-client/index.js'
import type { SyncQuarantineIncident } from '../alerts/index.js'
import type { Clock } from '../clock/index.js'
import {
  advanceCursor,
  applySyncPage,
  deleteTransactionsNotInBackfill,
  enqueueBackfillRemovals,
  enqueueMatches,
  findException,
  getSyncStream,
  isStillBootstrapping,
  openException,
  openQuarantine,
  openQuarantineProblems,
  resolveException,
  resolveQuarantine,
  saveStreamDialect,
  saveStreamHead,
  transactionToRow,
  upsertTransactions,
  type Database,
  type SyncStream,
} from '../store/index.js'
import { planSyncPage } from './plan-sync-page.js'
import type { SyncSource } from './sync-source.js'

export type ConnectionSyncDeps = {
  db: Kysely<Database>
  source: SyncSource
  clock: Clock
  /** Events per sync call (1–500). @defaultValue 500 */
  pageSize?: number
  /** Called with a classification of a cursor the bank refused, before the stream starts over. */
  isCursorExpired(error: unknown): boolean
  isCursorInvalid(error: unknown): boolean
  onCursorRejected?(kind: 'expired' | 'invalid', connectionId: string): Promise<void> | void
  /** The stream's dialect, when it is first found or changes (once per stream, not per page). */
  onDialect?(connectionId: string, dialect: SyncDialect): Promise<void> | void
  /**
   * Kinds of unreadable sync event whose exception has just opened: tell operations (once per kind). Called after
   * the quarantine rows are committed with their page.
   */
  onQuarantineProblems?(connectionId: string, problems: SyncQuarantineIncident[]): Promise<void> | void
}

/**
 * The stream as the caller's previous run left it, kept up to date by each run. A loop that holds the connection's
 * sync lock passes it from run to run, so a run starts without reading the stream again: nothing else moves the
 * cursor meanwhile, and the page's compare-and-swap would refuse a stale one.
 */
export type CarriedStream = { stream?: SyncStream }

export type ConnectionSyncResult = {
  bootstrapped: boolean
  pagesApplied: number
  upserted: number
  deleted: number
  /** Events that fit no dialect, quarantined by this run. */
  quarantined: number
  /** Quarantined events of earlier runs that this run settled. */
  quarantineSettled: number
  /** Earliest posted date the run touched; balances are re-read from there. */
  earliestPostedDate: string | null
}

/** Another worker advanced the same stream first; this run's page was rolled back and the run stops. */
export class ConcurrentSyncError extends Error {
  readonly code = 'concurrent_sync'
  constructor(connectionId: string) {
    super(
      `Another worker advanced the sync stream of connection ${connectionId}; this run stopped without applying its page.`,
    )
    this.name = 'ConcurrentSyncError'
  }
}

/**
 * Brings one connection's mirror up to the bank's stream: the seed's no-gap bootstrap for a new (or restarted)
 * stream, then every page while hasMore, each page's upserts, deletes and new cursor in one transaction.
 */
export async function runConnectionSync(
  deps: ConnectionSyncDeps,
  connectionId: string,
  carried: CarriedStream = {},
): Promise<ConnectionSyncResult> {
  const result: ConnectionSyncResult = {
    bootstrapped: false,
    pagesApplied: 0,
    upserted: 0,
    deleted: 0,
    quarantined: 0,
    quarantineSettled: 0,
    earliestPostedDate: null,
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    let stream = (attempt === 0 ? carried.stream : undefined) ?? (await getSyncStream(deps.db, connectionId))
    carried.stream = undefined
    if (!stream || stream.bootstrap_state !== 'streaming' || stream.cursor === null) {
      await bootstrap(deps, connectionId, result)
      stream = await getSyncStream(deps.db, connectionId)
    } else if (stream.quarantined) {
      const rechecked = await recheckQuarantine(deps, connectionId, stream.cursor)
      result.quarantineSettled += rechecked.settled
      noteDate(result, rechecked.earliestPostedDate)
      // Also re-raises an exception (and its alert) that a crash right after a quarantining page left unraised.
      if (rechecked.settled > 0 || rechecked.remaining > 0) await reportQuarantine(deps, connectionId, [])
      stream = { ...stream, quarantined: rechecked.remaining > 0 }
    }
    try {
      carried.stream = await streamPages(deps, connectionId, stream, result)
      return result
    } catch (error) {
      const kind = deps.isCursorExpired(error)
        ? 'expired'
        : deps.isCursorInvalid(error)
          ? 'invalid'
          : undefined
      if (!kind || attempt > 0) throw error
      await deps.onCursorRejected?.(kind, connectionId)
      await deps.db.deleteFrom('sync_streams').where('connection_id', '=', connectionId).execute()
    }
  }
  throw new Error('unreachable: the second attempt either returns or throws')
}

/** Seed rule 5: save the head, backfill from the list endpoint, then stream from the head. */
async function bootstrap(
  deps: ConnectionSyncDeps,
  connectionId: string,
  result: ConnectionSyncResult,
): Promise<void> {
  const head = await deps.source.syncPage({ connectionId, limit: 1 })
  await saveStreamHead(deps.db, connectionId, head.nextCursor, deps.clock.now())
  const run = randomUUID()
  for await (const page of deps.source.transactionPages(connectionId)) {
    // Matching's outbox is written with the rows it concerns, so no committed change goes unmatched.
    await deps.db.transaction().execute(async (trx) => {
      if (!(await isStillBootstrapping(trx, connectionId, head.nextCursor)))
        throw new ConcurrentSyncError(connectionId)
      await upsertTransactions(
        trx,
        page.map((tx) => transactionToRow(tx, null, run)),
      )
      await enqueueMatches(
        trx,
        'transaction',
        page.map((tx) => tx.id),
      )
    })
    result.upserted += page.length
    for (const tx of page) noteDate(result, tx.postedDate)
  }
  await deps.db.transaction().execute(async (trx) => {
    await enqueueBackfillRemovals(trx, connectionId, run)
    result.deleted += await deleteTransactionsNotInBackfill(trx, connectionId, run)
    if (!(await advanceCursor(trx, connectionId, null, head.nextCursor, deps.clock.now()))) {
      throw new ConcurrentSyncError(connectionId)
    }
    // The backfill listed every transaction the bank has: whatever a quarantined event meant is in the mirror.
    result.quarantineSettled += await resolveQuarantine(trx, { connectionId }, 'backfilled', deps.clock.now())
  })
  result.bootstrapped = true
  if (result.quarantineSettled > 0) await reportQuarantine(deps, connectionId, [])
}

/**
 * The stream's pages from its cursor; the last one records the run's success with it.
 * @returns the stream as the run left it
 */
async function streamPages(
  deps: ConnectionSyncDeps,
  connectionId: string,
  stream: SyncStream | undefined,
  result: ConnectionSyncResult,
): Promise<SyncStream> {
  if (!stream || stream.cursor === null)
    throw new Error(`sync stream of ${connectionId} has no cursor after bootstrap`)
  let cursor = stream.cursor
  let storedDialect = stream.dialect
  let quarantined = stream.quarantined
  const fetchPage = (from: string) => {
    const page = deps.source.syncPage({ connectionId, cursor: from, limit: deps.pageSize ?? 500 })
    // Awaited in the next turn of the loop; until then a failure must not count as unhandled.
    page.catch(() => undefined)
    return page
  }
  // Seed rule 6: a retried call reuses the same cursor; it is persisted only with its applied page.
  let next = fetchPage(cursor)
  let dialect = parseDialect(storedDialect)
  for (;;) {
    const page = await next
    // Read ahead while this page is written: reading persists nothing, and the page after it is applied only
    // once this one and its cursor are committed (or dropped with the run if this one fails).
    if (page.hasMore) next = fetchPage(page.nextCursor)
    const plan = planSyncPage(page.events)
    const from = cursor
    // An event that fits no dialect does not halt the stream: it is quarantined with its page (rule 6 holds:
    // the cursor never passes an event that is neither applied nor recorded).
    const applied = await applySyncPage(deps.db, {
      connectionId,
      from,
      next: page.nextCursor,
      upserts: plan.upserts,
      deletes: plan.deletes,
      quarantine: page.unreadable.map(toQuarantined),
      now: deps.clock.now(),
      endsRun: !page.hasMore,
    })
    if (applied === null) throw new ConcurrentSyncError(connectionId)
    if (page.unreadable.length > 0) {
      quarantined = true
      result.quarantined += page.unreadable.length
      await reportQuarantine(deps, connectionId, page.unreadable)
    }
    const found = page.dialect && newDialect(dialect, page.dialect)
    if (found) {
      dialect = found
      storedDialect = JSON.stringify(found)
      await saveStreamDialect(deps.db, connectionId, storedDialect)
      await deps.onDialect?.(connectionId, found)
    }
    // A removed or re-dated transaction changes the balance of the day it had: re-read balances from there too.
    noteDate(result, applied.earliestPreviousPostedDate)
    result.deleted += applied.deleted
    result.pagesApplied++
    result.upserted += plan.upserts.length
    noteDate(result, plan.earliestPostedDate)
    cursor = page.nextCursor
    if (!page.hasMore) return { ...stream, cursor, dialect: storedDialect, quarantined }
  }
}

/**
 * The stream's dialect if a page shows something new (first found, another kind field or casing, or the first
 * removed event's shape); null when the page says nothing new, so a stream is logged once, not per page.
 */
export function newDialect(known: SyncDialect | null, seen: SyncDialect): SyncDialect | null {
  // Another kind field or casing is another dialect: what was known of the old one's removed events is void.
  if (!known || known.kindField !== seen.kindField || known.casing !== seen.casing) return seen
  if (seen.removed !== null && seen.removed !== known.removed) return { ...known, removed: seen.removed }
  return null
}

function parseDialect(stored: string | null): SyncDialect | null {
  if (stored === null) return null
  try {
    return JSON.parse(stored) as SyncDialect
  } catch {
    return null
  }
}

function toQuarantined(event: UnreadableSyncEvent) {
  return {
    eventId: event.eventId,
    transactionId: event.transactionId,
    problem: event.problem,
    detail: event.detail,
    raw: JSON.stringify(event.raw) ?? 'null',
  }
}

/** Opens (or resolves) the exceptions of the quarantine and hands newly opened kinds to the alert hook. */
async function reportQuarantine(
  deps: ConnectionSyncDeps,
  connectionId: string,
  unreadable: readonly UnreadableSyncEvent[],
): Promise<void> {
  const details = new Map(unreadable.map((event) => [event.problem, event.detail]))
  const opened = await syncQuarantineExceptions(deps.db, details, deps.clock.now())
  if (opened.length > 0) await deps.onQuarantineProblems?.(connectionId, opened)
}

/** The earlier of two ISO dates, either of which may be missing. */
export function earlierDate(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b || null
  return b && b < a ? b : a
}

function noteDate(result: ConnectionSyncResult, date: string | null | undefined): void {
  result.earliestPostedDate = earlierDate(result.earliestPostedDate, date)
}

// ── the quarantine: sync events that fit no dialect ─────────────────────────────────────────────────────────────

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

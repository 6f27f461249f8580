import { randomUUID } from 'node:crypto'
import type { SyncDialect, SyncPageRead } from '../api-client/index.js'
import {
  advanceCursor,
  applySyncPage,
  deleteTransactionsNotInBackfill,
  enqueueBackfillRemovals,
  encodeTransactionRows,
  enqueueMatches,
  getSyncStream,
  isStillBootstrapping,
  resolveQuarantine,
  saveStreamDialect,
  saveStreamHead,
  upsertTransactions,
  type EncodedTransactionRows,
  type SyncStream,
} from '../store/index.js'
import { planSyncPage, transactionToRow, type SyncPagePlan } from './plan-sync-page.js'
import { readAhead } from './read-ahead.js'
import { recheckQuarantine, reportQuarantine, toQuarantined, type QuarantineDeps } from './sync-quarantine.js'

/**
 * Pages read ahead of the one being written: the bank answers the next while the mirror writes this one, and a
 * page is parsed and planned while the one before it is written. With two, the bank prepares page n+2 while this
 * process parses n+1 and PostgreSQL writes n, instead of the three in a chain. A page waiting for its write holds
 * only its flat column literals (PreparedPage), which is what made two pages cost no more CPU than one
 * (docs/performance.md, "Issue 29, third pass").
 */
const READ_AHEAD_PAGES = 2

/**
 * What the writer needs of a page read ahead: its cursor, its plan's deletes and dates, its upserts encoded. The
 * parsed events and planned rows are dropped on arrival, so they die young instead of being copied by the
 * scavenger while the page waits for its write.
 */
type PreparedPage = Pick<SyncPageRead, 'nextCursor' | 'hasMore' | 'unreadable' | 'dialect'> &
  Pick<SyncPagePlan, 'deletes' | 'earliestPostedDate'> & { upserts: EncodedTransactionRows }

/** What one run needs: the quarantine's deps (db, client, clock, onQuarantineProblems) and these. */
export type ConnectionSyncDeps = QuarantineDeps & {
  /** Events per sync call (1–500). @defaultValue 500 */
  pageSize?: number
  /** Called with a classification of a cursor the bank refused, before the stream starts over. */
  isCursorExpired(error: unknown): boolean
  isCursorInvalid(error: unknown): boolean
  onCursorRejected?(kind: 'expired' | 'invalid', connectionId: string): Promise<void> | void
  /** The stream's dialect, when it is first found or changes (once per stream, not per page). */
  onDialect?(connectionId: string, dialect: SyncDialect): Promise<void> | void
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
  // No cursor: the sync call answers with the stream's head.
  const head = await deps.client.transactions.sync({ connectionId, limit: 1 })
  await saveStreamHead(deps.db, connectionId, head.nextCursor, deps.clock.now())
  const run = randomUUID()
  // Every transaction of the connection from the list endpoint, 500 rows a page (the seed's maximum).
  const pages = deps.client.transactions.listPages({ connectionId, limit: 500, sort: 'updatedAt' })
  for await (const { data: page } of pages) {
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
  const limit = deps.pageSize ?? 500
  // Seed rule 6: a retried call reuses the same cursor; it is persisted only with its applied page.
  const pages = readAhead(
    (from: string) =>
      deps.client.transactions.sync({ connectionId, limit, ...(from ? { cursor: from } : {}) }),
    // Planned and encoded for the write on arrival, off the path from one page's commit to the next page's write.
    ({ events, nextCursor, hasMore, unreadable, dialect }): PreparedPage => {
      const { upserts, deletes, earliestPostedDate } = planSyncPage(events)
      const encoded = encodeTransactionRows(upserts)
      return { nextCursor, hasMore, unreadable, dialect, deletes, earliestPostedDate, upserts: encoded }
    },
    cursor,
    READ_AHEAD_PAGES,
  )
  let dialect = parseDialect(storedDialect)
  try {
    for (;;) {
      const page = await pages.take()
      const from = cursor
      // An event that fits no dialect does not halt the stream: it is quarantined with its page (rule 6 holds:
      // the cursor never passes an event that is neither applied nor recorded).
      const applied = await applySyncPage(deps.db, {
        connectionId,
        from,
        next: page.nextCursor,
        upserts: page.upserts,
        deletes: page.deletes,
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
      result.upserted += page.upserts.ids.length
      noteDate(result, page.earliestPostedDate)
      cursor = page.nextCursor
      if (!page.hasMore) return { ...stream, cursor, dialect: storedDialect, quarantined }
    }
  } finally {
    pages.stop()
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

/** The earlier of two ISO dates, either of which may be missing. */
export function earlierDate(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b || null
  return b && b < a ? b : a
}

function noteDate(result: ConnectionSyncResult, date: string | null | undefined): void {
  result.earliestPostedDate = earlierDate(result.earliestPostedDate, date)
}

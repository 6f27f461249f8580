import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import {
  BankCursorExpiredError,
  BankInvalidCursorError,
  describeSyncDialect,
  type SyncDialect,
} from '../api-client/index.js'
import type { SyncQuarantineIncident } from '../alerts/index.js'
import type { Logger } from '../observability/index.js'
import {
  advanceCursor,
  applySyncPage,
  balanceProofOwed,
  deleteTransactionsNotInBackfill,
  enqueueBackfillRemovals,
  enqueueMatches,
  getSyncStream,
  hasUnservedSyncRequests,
  isStillBootstrapping,
  markSyncRequestsCompleted,
  noteSyncRequest,
  pendingSyncRequests,
  resolveQuarantine,
  saveStreamDialect,
  saveStreamHead,
  upsertTransactions,
  type SyncStream,
} from '../store/index.js'
import { planSyncPage, transactionToRow } from './plan-sync-page.js'
import { refreshAccountsAndBalances, refreshConnection, type MirrorRefreshDeps } from './refresh-mirror.js'
import { recheckQuarantine, reportQuarantine, toQuarantined, type QuarantineDeps } from './sync-quarantine.js'

export type SyncProblem =
  | { kind: 'invalid_cursor'; connectionId: string }
  | { kind: 'access_denied'; connectionId: string; status: number }
  | { kind: 'connection_gone'; connectionId: string }
  | { kind: 'unreadable_sync_events'; connectionId: string; incidents: SyncQuarantineIncident[] }

/**
 * What syncing a connection under its lock needs: the mirror's refresh after runs (db, client, clock,
 * recordConnection) and these. The connection-sync worker's deps are these and more.
 */
export type SyncWhenFreeDeps = MirrorRefreshDeps & {
  /** The pool behind db: the per-connection lock is held on one of its clients for the whole run. */
  pool: pg.Pool
  /** Scopes the per-connection lock; the store's schema name. */
  lockNamespace: string
  logger: Logger
  /** Events per sync call. @defaultValue 500 */
  pageSize?: number
  /** Alerts and the like; failures here never fail the sync. */
  onProblem?(problem: SyncProblem): Promise<void> | void
  /**
   * As soon as a run's pages are committed, before the accounts and balances are re-read: hand the changes to
   * reconciliation here, so payments do not wait on those bank calls.
   */
  onChangesApplied?(connectionId: string, result: ConnectionSyncResult): Promise<void> | void
  /**
   * After the refresh of accounts and balances, e.g. the balance proof: once the connection is caught up, and every
   * 5 s while runs keep coming. `result` adds up the runs since the last call.
   */
  onSynced?(connectionId: string, result: ConnectionSyncResult): Promise<void> | void
  /** @defaultValue none: every caught-up run re-reads the connection at once */
  refreshPacing?: RefreshPacing
}

/**
 * Paces the re-read that follows caught-up runs: the connection's status, its accounts and balances, then
 * `onSynced` (the balance proof). Under a stream of payments nearly every run catches up, and a re-read after each
 * cost three bank calls and some forty statements per payment, more than the sync itself. A caught-up run within
 * `everyMs` of its process's last re-read of the connection owes one instead (`owe`: a delayed connection-sync job,
 * durable like any request), due when the interval is over: a status change a dropped webhook hid is seen at most
 * that much later. The days a put-off proof must cover wait in balance_proof_due, written with each page.
 */
export type RefreshPacing = {
  everyMs: number
  /** When this process last re-read each connection (clock ms). */
  lastAt: Map<string, number>
  owe(connectionId: string, dueAtMs: number): Promise<void>
}

export type SyncJobOutcome = { connectionId: string; runs: number; skipped?: 'locked' }

// ── the connection's lock, and runs until it is caught up ──────────────────────────────────────────────────────

/**
 * The advisory lock of one connection's sync. Advisory locks are database-wide, so the name carries bankrec's
 * schema: two installations sharing a database (or two test files) never block each other.
 */
export function syncLockName(namespace: string, connectionId: string): string {
  return `${namespace}:sync:${connectionId}`
}

/**
 * Syncs the connection now unless another run holds its lock (then `skipped: 'locked'`: that run serves the
 * request, noted in sync_requests before the lock was tried). After unlocking, a run looks for requests noted
 * since its last check (their callers found the lock taken) and serves them too. A failure is handed to
 * `classify`, still under the lock, and its answer thrown. The queue's jobs and a webhook event's worker syncing
 * in place (src/pipeline) both come through here.
 */
export async function syncWhenFree(
  deps: SyncWhenFreeDeps,
  connectionId: string,
  classify: (error: unknown) => Promise<unknown> = async (error) => error,
  /** The job of a re-read that pacing owed: re-read once caught up, however recent this process's last one. */
  owedRefresh = false,
): Promise<SyncJobOutcome> {
  let runs = 0
  for (;;) {
    const outcome = await syncUnderLock(deps, connectionId, classify, owedRefresh)
    runs += outcome.runs
    if (outcome.skipped || !(await hasUnservedSyncRequests(deps.db, connectionId)))
      return { ...outcome, runs }
  }
}

async function syncUnderLock(
  deps: SyncWhenFreeDeps,
  connectionId: string,
  classify: (error: unknown) => Promise<unknown>,
  owedRefresh: boolean,
): Promise<SyncJobOutcome> {
  const lockClient = await deps.pool.connect()
  let locked = false
  // The lock's session may die under the run (PostgreSQL restarted, the connection killed): that must fail this
  // job, not crash the process with an unhandled 'error' event. The cursor compare-and-swap keeps the pages safe.
  let sessionError: Error | undefined
  const onSessionError = (error: Error) => {
    sessionError = error
    deps.logger.warn({ err: error, connectionId }, 'the sync lock session was lost')
  }
  lockClient.on('error', onSessionError)
  try {
    const { rows } = await lockClient.query<{ locked: boolean }>(
      'select pg_try_advisory_lock(hashtextextended($1, 0)) as locked',
      [syncLockName(deps.lockNamespace, connectionId)],
    )
    locked = rows[0]?.locked === true
    if (!locked) return { connectionId, runs: 0, skipped: 'locked' }
    return await runUntilCaughtUp(deps, connectionId, owedRefresh)
  } catch (error) {
    throw await classify(error)
  } finally {
    if (locked)
      await lockClient
        .query('select pg_advisory_unlock(hashtextextended($1, 0))', [
          syncLockName(deps.lockNamespace, connectionId),
        ])
        .catch((error: Error) => (sessionError ??= error))
    lockClient.off('error', onSessionError)
    // A broken session is discarded, not handed to the next job.
    lockClient.release(sessionError)
  }
}

const CONNECTION_READ_EVERY_MS = 1_000
const PROOF_EVERY_MS = 5_000

/** The runs `onSynced` has not been told about, as one. */
function mergeRuns(a: ConnectionSyncResult | null, b: ConnectionSyncResult): ConnectionSyncResult {
  if (a === null) return b
  return {
    bootstrapped: a.bootstrapped || b.bootstrapped,
    pagesApplied: a.pagesApplied + b.pagesApplied,
    upserted: a.upserted + b.upserted,
    deleted: a.deleted + b.deleted,
    quarantined: a.quarantined + b.quarantined,
    quarantineSettled: a.quarantineSettled + b.quarantineSettled,
    earliestPostedDate: earlierDate(a.earliestPostedDate, b.earliestPostedDate),
  }
}

async function runUntilCaughtUp(
  deps: SyncWhenFreeDeps,
  connectionId: string,
  owedRefresh: boolean,
): Promise<SyncJobOutcome> {
  let runs = 0
  // The proof's days are owed durably with each page (balance_proof_due): putting it off loses nothing, and a
  // connection that keeps receiving payments syncs again without waiting for it after every run.
  let unproved: ConnectionSyncResult | null = null
  let connectionReadAt = Number.NEGATIVE_INFINITY
  let provedAt = deps.clock.now().getTime()
  // The request count a run covers: read as the run before it completed, unless reads of the bank came between.
  let requested: bigint | null = null
  // Under the lock nothing else moves the stream: each run starts where the one before left it.
  const carried: CarriedStream = {}
  for (;;) {
    const covered = requested ?? (await pendingSyncRequests(deps.db, connectionId))
    const result = await runConnectionSync(
      {
        db: deps.db,
        client: deps.client,
        clock: deps.clock,
        pageSize: deps.pageSize ?? 500,
        isCursorExpired: (e) => e instanceof BankCursorExpiredError,
        isCursorInvalid: (e) => e instanceof BankInvalidCursorError,
        onCursorRejected: async (kind) => {
          deps.logger.warn({ connectionId, kind }, 'sync cursor rejected; rebootstrapping the stream')
          if (kind === 'invalid') await notify(deps, { kind: 'invalid_cursor', connectionId })
        },
        onDialect: (id, dialect) => {
          deps.logger.info(
            { connectionId: id, dialect },
            `sync stream dialect: ${describeSyncDialect(dialect)}`,
          )
        },
        onQuarantineProblems: async (id, incidents) => {
          deps.logger.warn({ connectionId: id, incidents }, 'sync events quarantined: they fit no dialect')
          await notify(deps, { kind: 'unreadable_sync_events', connectionId: id, incidents })
        },
      },
      connectionId,
      carried,
    )
    await deps.onChangesApplied?.(connectionId, result)
    runs++
    requested = await markSyncRequestsCompleted(deps.db, connectionId, covered)
    deps.logger.info({ connectionId, ...result }, 'connection synced')
    unproved = mergeRuns(unproved, result)
    const caughtUp = requested === covered
    if (caughtUp && !owedRefresh && (await putOffRefresh(deps, connectionId, unproved))) break
    try {
      // The connection's status once caught up and every second while runs keep coming: a re-authentication
      // episode may be short, and a dropped webhook leaves this read to see it.
      if (caughtUp || deps.clock.now().getTime() - connectionReadAt >= CONNECTION_READ_EVERY_MS) {
        await refreshConnection(deps, connectionId)
        connectionReadAt = deps.clock.now().getTime()
        requested = null
      }
      if (caughtUp || deps.clock.now().getTime() - provedAt >= PROOF_EVERY_MS) {
        // Balance rows from the earliest day a run changed, or a page of a run that crashed before this step did.
        const { due } = await balanceProofOwed(deps.db, connectionId)
        const from = unproved.bootstrapped ? 'all' : earlierDate(due, unproved.earliestPostedDate)
        await refreshAccountsAndBalances(deps, connectionId, from)
        await deps.onSynced?.(connectionId, unproved)
        unproved = null
        provedAt = deps.clock.now().getTime()
        deps.refreshPacing?.lastAt.set(connectionId, provedAt)
        requested = null
      }
    } catch (error) {
      // The requests are marked served, but the connection, accounts and balances were not re-read after them (a
      // 429, a dropped answer): one more request keeps a sync owed, so the retry re-reads them before anyone
      // takes the mirror as caught up.
      if (caughtUp) await noteSyncRequest(deps.db, connectionId).catch(() => undefined)
      throw error
    }
    if (caughtUp) break
  }
  return { connectionId, runs }
}

/** Whether a caught-up run leaves its re-read to a job owed for later (RefreshPacing). */
async function putOffRefresh(
  deps: SyncWhenFreeDeps,
  connectionId: string,
  runs: ConnectionSyncResult,
): Promise<boolean> {
  const pacing = deps.refreshPacing
  // A bootstrap re-reads every day, and a settled quarantine days that balance_proof_due does not hold.
  if (!pacing || runs.bootstrapped || runs.quarantineSettled > 0) return false
  const dueAtMs = (pacing.lastAt.get(connectionId) ?? Number.NEGATIVE_INFINITY) + pacing.everyMs
  if (dueAtMs <= deps.clock.now().getTime()) return false
  try {
    await pacing.owe(connectionId, dueAtMs)
    return true
  } catch (error) {
    deps.logger.warn({ err: error, connectionId }, 'could not owe the re-read after a sync; re-reading now')
    return false
  }
}

/** Hands a problem to `onProblem`; a failure there is logged, never thrown. */
export async function notify(deps: SyncWhenFreeDeps, problem: SyncProblem): Promise<void> {
  try {
    await deps.onProblem?.(problem)
  } catch (error) {
    deps.logger.error({ err: error, problem }, 'sync problem handler failed')
  }
}

// ── one run: the bank's stream into the mirror ──────────────────────────────────────────────────────────────────

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
  const fetchPage = (from: string) => {
    const page = deps.client.transactions.sync({ connectionId, limit, ...(from ? { cursor: from } : {}) })
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

/** The earlier of two ISO dates, either of which may be missing. */
export function earlierDate(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b || null
  return b && b < a ? b : a
}

function noteDate(result: ConnectionSyncResult, date: string | null | undefined): void {
  result.earliestPostedDate = earlierDate(result.earliestPostedDate, date)
}

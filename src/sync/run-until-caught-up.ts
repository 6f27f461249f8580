import { BankCursorExpiredError, BankInvalidCursorError, describeSyncDialect } from '../api-client/index.js'
import {
  balanceProofOwed,
  markSyncRequestsCompleted,
  noteConnectionReads,
  noteSyncRequest,
  pendingSyncRequests,
} from '../store/index.js'
import { refreshAccountsAndBalances, refreshConnection } from './refresh-mirror.js'
import {
  noteReadTimes,
  readsAfterCaughtUp,
  readsOwed,
  readsWhileRunsCome,
  startRefreshClocks,
  type OwedRead,
  type Reads,
  type RefreshClocks,
} from './refresh-pacing.js'
import { notify, type SyncJobOutcome, type SyncWhenFreeDeps } from './sync-deps.js'
import {
  earlierDate,
  runConnectionSync,
  type CarriedStream,
  type ConnectionSyncDeps,
  type ConnectionSyncResult,
} from './sync-connection.js'

/** What one locked loop carries from run to run. */
type CatchUp = {
  runs: number
  /** The runs `onSynced` has not been told about, as one. */
  unproved: ConnectionSyncResult | null
  /**
   * The request count the next run covers: read as the lock was taken or as the run before it completed, unless
   * reads of the bank came between.
   */
  requested: bigint | null
  /** Under the lock nothing else moves the stream: each run starts where the one before left it. */
  carried: CarriedStream
  clocks: RefreshClocks
}

/**
 * Under the connection's lock (syncWhenFree): runs until a run completes with no request noted during it, handing
 * each run's changes on (`onChangesApplied`), then reads the connection, accounts and balances as RefreshPacing
 * and RefreshClocks say.
 */
export async function runUntilCaughtUp(
  deps: SyncWhenFreeDeps,
  connectionId: string,
  /** The job of a read pacing owed (null: any other run). */
  owed: OwedRead | null,
  /** The request count read as the lock was taken (tryLockReadingSyncRequests): what the first run covers. */
  requestedAtLock: bigint,
): Promise<SyncJobOutcome> {
  const loop: CatchUp = {
    runs: 0,
    unproved: null,
    requested: requestedAtLock,
    carried: {},
    clocks: startRefreshClocks(deps.clock.now().getTime()),
  }
  const runDeps = oneRunDeps(deps, connectionId)
  for (;;) {
    const covered = loop.requested ?? (await pendingSyncRequests(deps.db, connectionId))
    const result = await runConnectionSync(runDeps, connectionId, loop.carried)
    await deps.onChangesApplied?.(connectionId, result)
    loop.runs++
    const after = await markSyncRequestsCompleted(deps.db, connectionId, covered)
    loop.requested = after.requested
    noteReadTimes(loop.clocks, after)
    deps.logger.info({ connectionId, ...result }, 'connection synced')
    const unproved = mergeRuns(loop.unproved, result)
    loop.unproved = unproved
    const caughtUp = loop.requested === covered
    const owedReads = caughtUp && owed ? readsOwed(deps.refreshPacing, owed, unproved, after) : null
    const reads = !caughtUp
      ? readsWhileRunsCome(loop.clocks, deps.clock.now().getTime())
      : (owedReads ?? (await readsAfterCaughtUp(deps, connectionId, unproved, after)))
    await readAfterRun(deps, connectionId, loop, unproved, caughtUp, reads)
    if (caughtUp) break
  }
  return { connectionId, runs: loop.runs }
}

/** The reads after a run; either resets the request count the next run covers. */
async function readAfterRun(
  deps: SyncWhenFreeDeps,
  connectionId: string,
  loop: CatchUp,
  unproved: ConnectionSyncResult,
  caughtUp: boolean,
  reads: Reads,
): Promise<void> {
  const done: { statusReadAt?: Date; refreshedAt?: Date } = {}
  try {
    if (reads.status) {
      await refreshConnection(deps, connectionId)
      done.statusReadAt = deps.clock.now()
      loop.clocks.connectionReadAt = done.statusReadAt.getTime()
      loop.requested = null
    }
    if (reads.proof) {
      // Balance rows from the earliest day a run changed, or a page of a run that crashed before this step did.
      const { due } = await balanceProofOwed(deps.db, connectionId)
      const from = unproved.bootstrapped ? 'all' : earlierDate(due, unproved.earliestPostedDate)
      await refreshAccountsAndBalances(deps, connectionId, from)
      await deps.onSynced?.(connectionId, unproved)
      loop.unproved = null
      done.refreshedAt = deps.clock.now()
      loop.clocks.provedAt = done.refreshedAt.getTime()
      loop.requested = null
    }
    // Paced (SYNC_REFRESH_SECONDS > 0): every process counts its next reads from these.
    if (deps.refreshPacing?.everyMs && (done.statusReadAt || done.refreshedAt))
      await noteConnectionReads(deps.db, connectionId, done)
  } catch (error) {
    // The requests are marked served, but the connection, accounts and balances were not re-read after them (a
    // 429, a dropped answer): one more request keeps a sync owed, so the retry re-reads them before anyone
    // takes the mirror as caught up.
    if (caughtUp) await noteSyncRequest(deps.db, connectionId).catch(() => undefined)
    throw error
  }
}

/** What each run of the loop needs: the bank's cursor errors classified, its problems logged and notified. */
function oneRunDeps(deps: SyncWhenFreeDeps, connectionId: string): ConnectionSyncDeps {
  return {
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
      deps.logger.info({ connectionId: id, dialect }, `sync stream dialect: ${describeSyncDialect(dialect)}`)
    },
    onQuarantineProblems: async (id, incidents) => {
      deps.logger.warn({ connectionId: id, incidents }, 'sync events quarantined: they fit no dialect')
      await notify(deps, { kind: 'unreadable_sync_events', connectionId: id, incidents })
    },
  }
}

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

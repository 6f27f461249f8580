import { DelayedError, UnrecoverableError, type Job, type Queue, type Worker } from 'bullmq'
import { sql, type Kysely } from 'kysely'
import type pg from 'pg'
import {
  BankAuthenticationError,
  BankCursorExpiredError,
  BankInvalidCursorError,
  BankNotFoundError,
  BankPermissionError,
  BankRateLimitError,
  BankValidationError,
  ValidationError,
  describeSyncDialect,
  type BankClient,
  type Connection,
} from '../api-client/index.js'
import type { SyncQuarantineIncident } from '../alerts/index.js'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  CONNECTION_SYNC_JOB_OPTIONS,
  CONNECTION_SYNC_QUEUE,
  createBackendWorker,
  syncJobId,
  type ConnectionSyncJobData,
  type QueueBackendConfig,
} from '../queue/index.js'
import {
  balanceProofOwed,
  hasUnservedSyncRequests,
  markSyncRequestsCompleted,
  observeConnection,
  pendingSyncRequests,
  purgeConnection,
  recordSyncError,
  replaceConnectionAccounts,
  upsertDailyBalances,
  type Database,
} from '../store/index.js'
import { bankSyncSource, type SyncSource } from './sync-source.js'
import {
  earlierDate,
  runConnectionSync,
  type CarriedStream,
  type ConnectionSyncResult,
} from './run-connection-sync.js'

export type SyncProblem =
  | { kind: 'invalid_cursor'; connectionId: string }
  | { kind: 'access_denied'; connectionId: string; status: number }
  | { kind: 'connection_gone'; connectionId: string }
  | { kind: 'unreadable_sync_events'; connectionId: string; incidents: SyncQuarantineIncident[] }

export type SyncWorkerDeps = {
  db: Kysely<Database>
  /** The pool behind db: the per-connection lock is held on one of its clients for the whole run. */
  pool: pg.Pool
  /** Scopes the per-connection lock; the store's schema name. */
  lockNamespace: string
  client: BankClient
  clock: Clock
  logger: Logger
  queue: Queue<ConnectionSyncJobData>
  backend: QueueBackendConfig
  /** @defaultValue 2 */
  concurrency?: number
  /**
   * How long a job stays locked to a worker that stopped renewing it (crashed): another worker takes it over
   * after this. @defaultValue BullMQ's 30000
   */
  jobLockMs?: number
  /** Events per sync call. @defaultValue 500 */
  pageSize?: number
  /** Alerts and the like; failures here never fail the sync. */
  onProblem?(problem: SyncProblem): Promise<void> | void
  /** The safety-net schedule's job (connectionId '*'): request a sync of every ready connection. */
  requestSyncOfAll?(): Promise<void>
  /**
   * Writes the connection as read after each run: its mirrored row and its health together (one truth for its
   * status, issue 14). @defaultValue the mirrored row alone
   */
  recordConnection?(connection: Connection): Promise<void>
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

/**
 * The advisory lock of one connection's sync. Advisory locks are database-wide, so the name carries bankrec's
 * schema: two installations sharing a database (or two test files) never block each other.
 */
export function syncLockName(namespace: string, connectionId: string): string {
  return `${namespace}:sync:${connectionId}`
}

/** The connectionId of the schedule's job that fans out to every ready connection. */
export const ALL_CONNECTIONS = '*'

export type SyncJobOutcome = { connectionId: string; runs: number; skipped?: 'locked' }

/**
 * Syncs connections from the connection-sync queue. At most one run per connection at a time across every
 * process: a PostgreSQL advisory lock held for the run, plus the cursor compare-and-swap in the store.
 */
export function createSyncWorker(deps: SyncWorkerDeps): Worker<ConnectionSyncJobData, SyncJobOutcome> {
  const worker = createBackendWorker<ConnectionSyncJobData, SyncJobOutcome>(
    CONNECTION_SYNC_QUEUE,
    deps.backend,
    (job, token) => processSyncJob(deps, job, token),
    {
      concurrency: deps.concurrency ?? 2,
      ...(deps.jobLockMs ? { lockDuration: deps.jobLockMs, stalledInterval: deps.jobLockMs } : {}),
    },
  )
  // A trigger that landed after the run's last check found the job still active, so its add was a no-op. The job
  // is gone by now (removeOnComplete), so a new one can be queued for it.
  worker.on('completed', (job, outcome) => {
    void queueUnservedRequests(deps, job.data.connectionId, outcome).catch((error) =>
      deps.logger.error(
        { err: error, connectionId: job.data.connectionId },
        'could not queue a follow-up sync',
      ),
    )
  })
  return worker
}

async function queueUnservedRequests(
  deps: SyncWorkerDeps,
  connectionId: string,
  outcome: SyncJobOutcome,
): Promise<void> {
  if (!(await hasUnservedSyncRequests(deps.db, connectionId))) return
  // A job that found the lock taken leaves the requests to the run holding it, which looks for them again once it
  // unlocks (syncWhenFree); queueing at once would only find it still running, again and again.
  if (outcome.skipped === 'locked' && (await syncLockHeld(deps, connectionId))) return
  await deps.queue.add(
    'sync',
    { connectionId, reason: 'follow-up' },
    { ...CONNECTION_SYNC_JOB_OPTIONS, jobId: syncJobId(connectionId) },
  )
}

/** Whether a run holds the connection's lock now (a transaction-level try outside a transaction frees it at once). */
async function syncLockHeld(deps: SyncWorkerDeps, connectionId: string): Promise<boolean> {
  const { rows } = await sql<{ free: boolean }>`
    select pg_try_advisory_xact_lock(hashtextextended(${syncLockName(deps.lockNamespace, connectionId)}, 0)) as free
  `.execute(deps.db)
  return rows[0]?.free !== true
}

export async function processSyncJob(
  deps: SyncWorkerDeps,
  job: Job<ConnectionSyncJobData>,
  token: string | undefined,
): Promise<SyncJobOutcome> {
  const { connectionId } = job.data
  if (connectionId === ALL_CONNECTIONS) {
    await deps.requestSyncOfAll?.()
    return { connectionId, runs: 0 }
  }
  return syncWhenFree(deps, connectionId, (error) => classifyFailure(deps, job, token, connectionId, error))
}

/**
 * Syncs the connection now unless another run holds its lock (then `skipped: 'locked'`: that run serves the
 * request, noted in sync_requests before the lock was tried). After unlocking, a run looks for requests noted
 * since its last check (their callers found the lock taken) and serves them too. A failure is handed to
 * `classify`, still under the lock, and its answer thrown. The queue's jobs and a webhook event's worker syncing
 * in place (src/pipeline) both come through here.
 */
export async function syncWhenFree(
  deps: SyncWorkerDeps,
  connectionId: string,
  classify: (error: unknown) => Promise<unknown> = async (error) => error,
): Promise<SyncJobOutcome> {
  let runs = 0
  for (;;) {
    const outcome = await syncUnderLock(deps, connectionId, classify)
    runs += outcome.runs
    if (outcome.skipped || !(await hasUnservedSyncRequests(deps.db, connectionId)))
      return { ...outcome, runs }
  }
}

async function syncUnderLock(
  deps: SyncWorkerDeps,
  connectionId: string,
  classify: (error: unknown) => Promise<unknown>,
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
    return await runUntilCaughtUp(deps, connectionId)
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

async function runUntilCaughtUp(deps: SyncWorkerDeps, connectionId: string): Promise<SyncJobOutcome> {
  const source = bankSyncSource(deps.client)
  let runs = 0
  // The proof's days are owed durably with each page (balance_proof_due): putting it off loses nothing, and a
  // connection that keeps receiving payments syncs again without waiting for it after every run.
  let unproved: ConnectionSyncResult | null = null
  const mirror = { db: deps.db, source, clock: deps.clock, recordConnection: deps.recordConnection }
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
        source,
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
    // The connection's status once caught up and every second while runs keep coming: a re-authentication
    // episode may be short.
    if (caughtUp || deps.clock.now().getTime() - connectionReadAt >= CONNECTION_READ_EVERY_MS) {
      await refreshConnection(mirror, connectionId)
      connectionReadAt = deps.clock.now().getTime()
      requested = null
    }
    if (caughtUp || deps.clock.now().getTime() - provedAt >= PROOF_EVERY_MS) {
      // Balance rows from the earliest day a run changed, or a page of a run that crashed before this step did.
      const { due } = await balanceProofOwed(deps.db, connectionId)
      const from = unproved.bootstrapped ? 'all' : earlierDate(due, unproved.earliestPostedDate)
      await refreshAccountsAndBalances(mirror, connectionId, from)
      await deps.onSynced?.(connectionId, unproved)
      unproved = null
      provedAt = deps.clock.now().getTime()
      requested = null
    }
    if (caughtUp) break
  }
  return { connectionId, runs }
}

async function classifyFailure(
  deps: SyncWorkerDeps,
  job: Job<ConnectionSyncJobData>,
  token: string | undefined,
  connectionId: string,
  error: unknown,
): Promise<unknown> {
  await recordSyncError(
    deps.db,
    connectionId,
    error instanceof Error ? error.message : String(error),
    deps.clock.now(),
  ).catch(() => undefined)
  if (error instanceof BankRateLimitError) {
    // The bank said when: wait exactly that long, without spending one of the job's attempts.
    const waitMs = error.retryAfterMs ?? 1_000
    await job.moveToDelayed(Date.now() + waitMs, token)
    return new DelayedError()
  }
  if (error instanceof BankAuthenticationError || error instanceof BankPermissionError) {
    await notify(deps, { kind: 'access_denied', connectionId, status: error.status ?? 0 })
    return new UnrecoverableError(`The bank refused bankrec's API key (${error.code}); fix BANK_API_KEY.`)
  }
  if (error instanceof ValidationError || error instanceof BankValidationError) {
    // Not an id the bank accepts (finding 12): no retry can make it one.
    return new UnrecoverableError(`Connection ${connectionId} cannot be synced: ${error.message}`)
  }
  if (error instanceof BankNotFoundError) {
    await purgeConnection(deps.db, connectionId)
    await notify(deps, { kind: 'connection_gone', connectionId })
    return new UnrecoverableError(
      `Connection ${connectionId} no longer exists at the bank; its mirror was removed.`,
    )
  }
  return error
}

async function notify(deps: SyncWorkerDeps, problem: SyncProblem): Promise<void> {
  try {
    await deps.onProblem?.(problem)
  } catch (error) {
    deps.logger.error({ err: error, problem }, 'sync problem handler failed')
  }
}

// ── after the sync: the connection, its accounts and balances ───────────────────────────────────────────────────

type MirrorRefreshDeps = {
  db: Kysely<Database>
  source: SyncSource
  clock: Clock
  /**
   * Writes the connection read here: its mirrored row and its health in one transaction (the sidecar's connection
   * health). @defaultValue the mirrored row alone
   */
  recordConnection?(connection: Connection): Promise<void>
}

/** After a sync run: the connection as the bank shows it now. */
export async function refreshConnection(deps: MirrorRefreshDeps, connectionId: string): Promise<void> {
  const connection = await deps.source.getConnection(connectionId)
  if (deps.recordConnection) await deps.recordConnection(connection)
  else await observeConnection(deps.db, connection, 'sync', deps.clock.now())
}

/**
 * After sync runs: the connection's accounts, and its balance rows from the earliest posted date the runs touched
 * (balance rows are mutable projections; seed, Account balance).
 */
export async function refreshAccountsAndBalances(
  deps: MirrorRefreshDeps,
  connectionId: string,
  balancesFrom: string | null | 'all',
): Promise<void> {
  await replaceConnectionAccounts(deps.db, connectionId, await deps.source.accounts(connectionId))
  if (balancesFrom === null) return
  for await (const page of deps.source.balancePages(
    connectionId,
    balancesFrom === 'all' ? undefined : balancesFrom,
  )) {
    await upsertDailyBalances(deps.db, page)
  }
}

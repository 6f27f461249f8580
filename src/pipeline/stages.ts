import type { Kysely } from 'kysely'
import type { Queue } from 'bullmq'
import type pg from 'pg'
import { syncQuarantineNotice, uninterpretableEventNotice } from '../alerts/index.js'
import type { AlertPipeline } from '../alert-delivery/index.js'
import type { BankClient } from '../api-client/index.js'
import { balanceCheckAfterSync } from '../balance-proof/index.js'
import type { Clock } from '../clock/index.js'
import type { BankrecEnv } from '../config/index.js'
import type { ConnectionHealthMonitor } from '../connection-health/index.js'
import { inSpan, type Logger } from '../observability/index.js'
import type { ConnectionSyncJobData, QueueBackendConfig } from '../queue/index.js'
import {
  createRefreshPacing,
  requestConnectionSync,
  requestSyncOfAllReadyConnections,
  syncWhenFree,
  type SyncWorkerDeps,
} from '../sync/index.js'
import { createMatchInPlace, type MatchingService } from '../matching/index.js'
import { noteSyncRequest, type Database } from '../store/index.js'
import type { ConnectionLookup, WebhookEventEffects } from '../webhook-events/index.js'

/**
 * bankrec's pipeline and its hand-offs, in one place (docs/architecture.md draws it):
 *
 *   receiver ─▶ [webhook-events] ─▶ ① webhook event ─▶ ② connection sync ─▶ ③ matching run ─▶ ④ app events, alerts
 *
 * ①→② `syncConnection`: the event's worker syncs the connection itself when its sync lock is free (a further
 *      event for a connection this process is syncing joins that run; one another process is syncing is that
 *      run's to serve); when this process runs too many syncs, or the sync fails, the request goes to
 *      [connection-sync], whose worker retries it with back-off (`createSyncInPlace` below).
 *      Once caught up, a sync re-reads the connection, accounts and balances (and proves them) at most once a
 *      second per connection here; a run sooner owes that to a delayed [connection-sync] job (`refreshPacing`).
 * ②→③ `changesApplied`: as soon as a sync's pages commit (with their matching-outbox rows), this process runs
 *      matching, beside the sync rather than in its way (requests during a run join it), waiting its turn for
 *      the matching lock up to 2 s; a longer wait, or a failed run, sends the request to [matching], one waiting
 *      job at most (`createMatchInPlace`, src/matching/match-in-place.ts).
 * ③→④ the run's app events commit with its results (app_events outbox); their NOTIFY reaches every worker
 *      process, one of which sends them in place (src/app-events/app-event-delivery.ts); a failed send is retried
 *      through [app-events]. Alerts (status changes, unreadable events) go through [alert-deliveries]: the hand-offs
 *      of ① are `eventEffects`, those of ② are in `startSyncing`.
 *
 * The queues stay the fallback for long contention, retries and other processes; every lock and outbox that makes
 * a stage safe to repeat is the same whichever worker runs it. Queue names and job options: src/queue/catalogue.ts.
 */
export type PipelineStages = {
  /** ①→②: a webhook event asks for a sync of a known connection. */
  syncConnection(connectionId: string, reason: string): Promise<void>
  /** A sync for the [connection-sync] worker (API, CLI, start-up, the safety-net schedule). */
  requestSync(connectionId: string, reason: string): Promise<void>
  /** The safety net: a sync of every ready connection the bank lists, through [connection-sync]. */
  requestSyncOfAll(reason: string): Promise<void>
  /** ②→③: a sync committed pages of the connection. */
  changesApplied(connectionId: string): Promise<void>
}

export type StageDeps = {
  config: BankrecEnv
  logger: Logger
  clock: Clock
  store: { db: Kysely<Database>; pool: pg.Pool; schema: string; connectionString: string }
  client: BankClient
  backend: QueueBackendConfig
  syncQueue: Queue<ConnectionSyncJobData>
  matching: MatchingService
  alerts: AlertPipeline
  connectionHealth: ConnectionHealthMonitor
  connectionLookup: ConnectionLookup
}

export type Stages = PipelineStages & {
  /** ①: what the webhook-events worker hands on: syncs, connection health, alerts. */
  eventEffects: WebhookEventEffects
  /**
   * The worker role: the connection-sync worker's deps with the hand-offs of ② (②→③ matching, health, alerts,
   * the balance proof). From the call on, webhook events of this process sync in place.
   */
  startSyncing(): SyncWorkerDeps
  /** Resolves once no matching run in place is going (shutdown waits for it). */
  settled(): Promise<void>
}

export function pipelineStages(deps: StageDeps): Stages {
  const { logger, clock } = deps
  const { db } = deps.store
  let syncDeps: SyncWorkerDeps | undefined
  // API, CLI, start-up and the safety net: a sync within one interval, whatever back-off the job waits out.
  const requestSync = (connectionId: string, reason: string) =>
    requestConnectionSync(
      { db, queue: deps.syncQueue, dueWithinMs: deps.config.SYNC_INTERVAL_SECONDS * 1000 },
      connectionId,
      reason,
    )
  // A sync in place that failed: its retries keep their back-off.
  const retrySync = (connectionId: string, reason: string) =>
    requestConnectionSync({ db, queue: deps.syncQueue }, connectionId, reason)
  const syncInPlace = createSyncInPlace({ logger, sync: () => syncDeps })
  const matchInPlace = createMatchInPlace({ matching: deps.matching, logger })
  const stages: PipelineStages = {
    async syncConnection(connectionId, reason) {
      if ((await syncInPlace(connectionId)) === 'queue') await retrySync(connectionId, reason)
    },
    requestSync,
    async requestSyncOfAll(reason) {
      await requestSyncOfAllReadyConnections(deps.client, requestSync, reason, logger)
    },
    async changesApplied(connectionId) {
      matchInPlace.request(`synced ${connectionId}`)
    },
  }
  const eventEffects: WebhookEventEffects = {
    requestSync: stages.syncConnection,
    requestSyncOfAll: stages.requestSyncOfAll,
    lookupConnection: deps.connectionLookup.lookupConnection,
    recordConnection: deps.connectionLookup.recordConnection,
    onStatusChanged: (change) => deps.connectionHealth.observeStatusChange(change),
    onUninterpretable: (event) =>
      deps.alerts.publish([uninterpretableEventNotice({ ...event, occurredAt: clock.now().toISOString() })]),
  }
  const startSyncing = (): SyncWorkerDeps => {
    const { store, config } = deps
    syncDeps = {
      db: store.db,
      pool: store.pool,
      lockNamespace: store.schema,
      client: deps.client,
      clock,
      logger,
      queue: deps.syncQueue,
      backend: deps.backend,
      concurrency: config.WORKER_CONCURRENCY,
      pageSize: config.SYNC_PAGE_SIZE,
      jobLockMs: config.JOB_LOCK_SECONDS * 1000,
      onProblem: async (problem) => {
        if (problem.kind !== 'unreadable_sync_events') return
        const at = clock.now().toISOString()
        await deps.alerts.publish(
          problem.incidents.map((incident) => syncQuarantineNotice(incident, problem.connectionId, at)),
        )
      },
      requestSyncOfAll: () => stages.requestSyncOfAll('schedule'),
      recordConnection: (connection) => deps.connectionHealth.observeConnection(connection, 'sync'),
      // Matching's outbox already holds the run's changes; its run need not wait for the balance refresh and proof.
      onChangesApplied: stages.changesApplied,
      onSynced: balanceCheckAfterSync({ db: store.db, client: deps.client, clock, logger }),
      refreshPacing: createRefreshPacing(deps.syncQueue, config.SYNC_REFRESH_SECONDS * 1000, clock),
    }
    return syncDeps
  }
  return { ...stages, eventEffects, startSyncing, settled: () => matchInPlace.settled() }
}

/**
 * Syncs in place at once in one process at most: each holds a client of the store's pool (10) for its lock, as
 * each running connection-sync job does, so the pool keeps clients for the runs' own queries.
 */
const MAX_SYNCS_IN_PLACE = 2

/**
 * What became of a request to sync in place: `synced` (this call ran the sync, or a run of the connection in this
 * process takes the request along), `holder-serves` (another process holds the connection's lock), `queue` (the
 * caller must queue it: not a worker process, MAX_SYNCS_IN_PLACE run, or the sync failed and the queue's worker
 * retries and classifies it).
 */
type InPlace = 'synced' | 'holder-serves' | 'queue'

/**
 * A webhook event's worker syncing the connection itself. The request is noted in sync_requests first, as every
 * request is, so whichever run holds the lock serves it: a run in this process runs once more after it unlocks,
 * and so does another process's (`syncWhenFree` looks for requests after it unlocks), so a request that found the
 * lock taken is served without a queued job; if the holder dies first, its own job (an event's, or a sync job) is
 * retried and syncs again. Queueing it anyway cost a job per event under a stream of payments, each finding the
 * lock taken.
 */
function createSyncInPlace(deps: {
  logger: Logger
  /** Unset outside the worker role: nothing syncs in place there. */
  sync: () => SyncWorkerDeps | undefined
}): (connectionId: string) => Promise<InPlace> {
  const running = new Map<string, { again: boolean }>()
  return async (connectionId) => {
    const sync = deps.sync()
    if (!sync) return 'queue'
    const run = running.get(connectionId)
    if (!run && running.size >= MAX_SYNCS_IN_PLACE) return 'queue'
    await noteSyncRequest(sync.db, connectionId)
    const joined = running.get(connectionId)
    if (joined) {
      joined.again = true
      return 'synced'
    }
    if (running.size >= MAX_SYNCS_IN_PLACE) return 'queue'
    const mine = { again: false }
    running.set(connectionId, mine)
    try {
      do {
        mine.again = false
        const outcome = await inSpan(
          'connection sync',
          { attributes: { 'bankrec.connection_id': connectionId } },
          () => syncWhenFree(sync, connectionId),
        )
        if (outcome.skipped) return 'holder-serves'
      } while (mine.again)
      return 'synced'
    } catch (error) {
      deps.logger.warn(
        { err: error, connectionId },
        'sync in place failed; the connection-sync worker retries it',
      )
      return 'queue'
    } finally {
      running.delete(connectionId)
    }
  }
}

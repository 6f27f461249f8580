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
import type { Logger } from '../observability/index.js'
import type { ConnectionSyncJobData, QueueBackendConfig } from '../queue/index.js'
import {
  createRefreshPacing,
  createSyncInPlace,
  requestConnectionSync,
  requestSyncOfAllReadyConnections,
  type SyncWorkerDeps,
} from '../sync/index.js'
import { createMatchInPlace, type MatchingService } from '../matching/index.js'
import type { Database } from '../store/index.js'
import type { ConnectionLookup, WebhookEventEffects } from '../webhook-events/index.js'

/**
 * bankrec's pipeline: its stages and their hand-offs, in one place (docs/architecture.md draws it). A table, no
 * state: each stage's policy (when to run in place, when to queue) lives in the stage's folder.
 *
 *   receiver ─▶ [webhook-events] ─▶ ① webhook event ─▶ ② connection sync ─▶ ③ matching run ─▶ ④ app events, alerts
 *
 * ①→② `eventEffects.requestSync`, in the worker role: the event's worker syncs the connection itself when its sync
 *      lock is free (a further event for a connection this process is syncing joins that run; one another process
 *      is syncing is that run's to serve); when this process runs too many syncs, or the sync fails, the request
 *      goes to [connection-sync], whose worker retries it with back-off (src/sync/sync-in-place.ts).
 *      Once caught up, a sync reads the connection's status at most once a second and its accounts and balances
 *      (and proves them) at most every 5 s, whichever process read them last; a run sooner owes that to a delayed
 *      [connection-sync] job (src/sync/refresh-pacing.ts). Every role (API, CLI, start-up, the safety net) asks
 *      for syncs through [connection-sync] (`syncRequests`).
 * ②→③ `onChangesApplied`: as soon as a sync's pages commit (with their matching-outbox rows), this process runs
 *      matching, beside the sync rather than in its way (requests during a run join it), waiting its turn for
 *      the matching lock up to 2 s; a longer wait, or a failed run, sends the request to [matching], one waiting
 *      job at most (`createMatchInPlace`, src/matching/match-in-place.ts).
 * ③→④ the run's app events commit with its results (app_events outbox); their NOTIFY reaches every worker
 *      process, one of which sends them in place (src/app-events/app-event-dispatcher.ts); a failed send is retried
 *      through [app-events]. Alerts (status changes, unreadable events) go through [alert-deliveries]: the hand-offs
 *      of ① are `eventEffects`, those of ② are `syncWorker`'s.
 *
 * The queues stay the fallback for long contention, retries and other processes; every lock and outbox that makes
 * a stage safe to repeat is the same whichever worker runs it. Queue names and job options: src/queue/catalogue.ts.
 * The worker role that runs these stages' workers: src/pipeline/worker-role.ts.
 */
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

/** What every role asks of the stages: syncs through [connection-sync]. */
export type SyncRequests = {
  /** A sync for the [connection-sync] worker (API, CLI, start-up, the safety-net schedule). */
  requestSync(connectionId: string, reason: string): Promise<void>
  /** The safety net: a sync of every ready connection the bank lists, through [connection-sync]. */
  requestSyncOfAll(reason: string): Promise<void>
}

export function syncRequests(deps: StageDeps): SyncRequests {
  const { db } = deps.store
  // A sync within one interval, whatever back-off the job waits out.
  const requestSync = (connectionId: string, reason: string) =>
    requestConnectionSync(
      { db, queue: deps.syncQueue, dueWithinMs: deps.config.SYNC_INTERVAL_SECONDS * 1000 },
      connectionId,
      reason,
    )
  return {
    requestSync,
    async requestSyncOfAll(reason) {
      await requestSyncOfAllReadyConnections(deps.client, requestSync, reason, deps.logger)
    },
  }
}

/** The hand-offs of the stages the worker role runs. */
export type WorkerStages = {
  /** ①: what the webhook-events worker hands on: syncs (in place), connection health, alerts. */
  eventEffects: WebhookEventEffects
  /** ②: the connection-sync worker's deps, with the hand-offs of ② (②→③ matching, health, alerts, the proof). */
  syncWorker: SyncWorkerDeps
  /** Resolves once no matching run in place is going (shutdown waits for it). */
  settled(): Promise<void>
}

export function workerStages(deps: StageDeps, requests: SyncRequests): WorkerStages {
  const { logger, clock, store, config } = deps
  const matchInPlace = createMatchInPlace({ matching: deps.matching, logger })
  const syncWorker: SyncWorkerDeps = {
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
    requestSyncOfAll: () => requests.requestSyncOfAll('schedule'),
    recordConnection: (connection) => deps.connectionHealth.observeConnection(connection, 'sync'),
    // Matching's outbox already holds the run's changes; its run need not wait for the balance refresh and proof.
    onChangesApplied: async (connectionId) => matchInPlace.request(`synced ${connectionId}`),
    onSynced: balanceCheckAfterSync({ db: store.db, client: deps.client, clock, logger }),
    refreshPacing: createRefreshPacing(deps.syncQueue, config.SYNC_REFRESH_SECONDS * 1000, clock),
  }
  const eventEffects: WebhookEventEffects = {
    requestSync: createSyncInPlace({
      sync: syncWorker,
      // A sync in place that failed: its retries keep their back-off.
      queue: (connectionId, reason) =>
        requestConnectionSync({ db: store.db, queue: deps.syncQueue }, connectionId, reason),
    }),
    requestSyncOfAll: requests.requestSyncOfAll,
    lookupConnection: deps.connectionLookup.lookupConnection,
    recordConnection: deps.connectionLookup.recordConnection,
    onStatusChanged: (change) => deps.connectionHealth.observeStatusChange(change),
    onUninterpretable: (event) =>
      deps.alerts.publish([uninterpretableEventNotice({ ...event, occurredAt: clock.now().toISOString() })]),
  }
  return { eventEffects, syncWorker, settled: () => matchInPlace.settled() }
}

import { sql, type Kysely } from 'kysely'
import type { Queue } from 'bullmq'
import type { BankClient } from '../api-client/index.js'
import type { Logger } from '../observability/index.js'
import type { ConnectionSyncJobData } from '../queue/index.js'
import {
  matchLockName,
  requestConnectionSync,
  syncWhenFree,
  type MatchingService,
  type SyncWorkerDeps,
} from '../reconcile/index.js'
import type { Database } from '../store/index.js'
import { requestSyncOfAllReadyConnections } from '../sidecar/sync-all.js'

/**
 * bankrec's pipeline and its hand-offs, in one place (docs/architecture.md draws it):
 *
 *   receiver ─▶ [webhook-events] ─▶ ① webhook event ─▶ ② connection sync ─▶ ③ matching run ─▶ ④ app events, alerts
 *
 * ①→② `syncConnection`: the event's worker syncs the connection itself when its sync lock is free; else, or when
 *      that sync fails, the request goes to [connection-sync], whose worker retries it with back-off.
 * ②→③ `changesApplied`: as soon as a sync's pages commit (with their matching-outbox rows), the same worker runs
 *      matching when the matching lock is free; else the request goes to [matching] (one waiting job at most).
 * ③→④ the run's app events commit with its results (app_events outbox); their NOTIFY queues [app-events], whose
 *      worker POSTs them to the app. Alerts go through [alert-deliveries].
 *
 * The queues stay the fallback for contention, retries and other processes; every lock and outbox that makes a
 * stage safe to repeat is the same whichever worker runs it. Queue names and job options: src/queue/catalogue.ts.
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
  db: Kysely<Database>
  /** The store's schema: scopes the matching lock. */
  schema: string
  client: BankClient
  logger: Logger
  syncQueue: Queue<ConnectionSyncJobData>
  matching: MatchingService
  /** How a sync runs (the connection-sync worker's own deps); only a worker process syncs in place. */
  sync?: () => SyncWorkerDeps | undefined
}

/**
 * Syncs in place at once in one process at most: each holds a client of the store's pool (10) for its lock, as
 * each running connection-sync job does, so the pool keeps clients for the runs' own queries.
 */
const MAX_SYNCS_IN_PLACE = 2

export function pipelineStages(deps: StageDeps): PipelineStages {
  const { db, logger } = deps
  let syncsInPlace = 0
  const requestSync = (connectionId: string, reason: string) =>
    requestConnectionSync({ db, queue: deps.syncQueue }, connectionId, reason)

  const syncInPlace = async (connectionId: string): Promise<boolean> => {
    const sync = deps.sync?.()
    if (!sync || syncsInPlace >= MAX_SYNCS_IN_PLACE) return false
    syncsInPlace++
    try {
      const outcome = await syncWhenFree(sync, connectionId)
      return outcome.skipped === undefined
    } catch (error) {
      logger.warn({ err: error, connectionId }, 'sync in place failed; the connection-sync worker retries it')
      return false
    } finally {
      syncsInPlace--
    }
  }

  const matchInPlace = async (): Promise<boolean> => {
    // A free lock now is a hint, not a hold: a run that takes it meanwhile only makes ours wait for its batch.
    const free = await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ free: boolean }>`
        select pg_try_advisory_xact_lock(hashtextextended(${matchLockName(deps.schema)}, 0)) as free
      `.execute(trx)
      return rows[0]?.free === true
    })
    if (!free) return false
    try {
      await deps.matching.runNow()
      return true
    } catch (error) {
      logger.warn({ err: error }, 'matching in place failed; the matching worker retries it')
      return false
    }
  }

  return {
    async syncConnection(connectionId, reason) {
      if (await syncInPlace(connectionId)) return
      await requestSync(connectionId, reason)
    },
    requestSync,
    async requestSyncOfAll(reason) {
      await requestSyncOfAllReadyConnections(deps.client, requestSync, reason, logger)
    },
    async changesApplied(connectionId) {
      try {
        if (await matchInPlace()) return
        await deps.matching.requestRun(`synced ${connectionId}`)
      } catch (error) {
        // The outbox holds the changes: the matching schedule's sweep runs them if no run was queued.
        logger.error({ err: error, connectionId }, 'could not run or queue matching')
      }
    },
  }
}

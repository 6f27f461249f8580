import type { Kysely } from 'kysely'
import type { Queue } from 'bullmq'
import type { BankClient } from '../api-client/index.js'
import type { Logger } from '../observability/index.js'
import type { ConnectionSyncJobData } from '../queue/index.js'
import {
  requestConnectionSync,
  requestSyncOfAllReadyConnections,
  type SyncWorkerDeps,
} from '../sync/index.js'
import { type MatchingService } from '../matching/index.js'
import type { Database } from '../store/index.js'
import { createMatchInPlace } from './match-in-place.js'
import { createSyncInPlace } from './sync-in-place.js'

/**
 * bankrec's pipeline and its hand-offs, in one place (docs/architecture.md draws it):
 *
 *   receiver ─▶ [webhook-events] ─▶ ① webhook event ─▶ ② connection sync ─▶ ③ matching run ─▶ ④ app events, alerts
 *
 * ①→② `syncConnection`: the event's worker syncs the connection itself when its sync lock is free (a further
 *      event for a connection this process is syncing joins that run); else, or when that sync fails, the
 *      request goes to [connection-sync], whose worker retries it with back-off (sync-in-place.ts).
 * ②→③ `changesApplied`: as soon as a sync's pages commit (with their matching-outbox rows), this process runs
 *      matching when the matching lock is free, beside the sync rather than in its way (requests during a run
 *      join it); else the request goes to [matching], one waiting job at most (match-in-place.ts).
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
  /** How a sync runs (the connection-sync worker's own deps); set in a worker process, which alone syncs in place. */
  sync: () => SyncWorkerDeps | undefined
}

export function pipelineStages(deps: StageDeps): PipelineStages & { settled(): Promise<void> } {
  const { db, logger } = deps
  const requestSync = (connectionId: string, reason: string) =>
    requestConnectionSync({ db, queue: deps.syncQueue }, connectionId, reason)
  const syncInPlace = createSyncInPlace({ logger, sync: deps.sync })
  const matchInPlace = createMatchInPlace({ db, schema: deps.schema, matching: deps.matching, logger })
  return {
    async syncConnection(connectionId, reason) {
      if (!(await syncInPlace(connectionId))) await requestSync(connectionId, reason)
    },
    requestSync,
    async requestSyncOfAll(reason) {
      await requestSyncOfAllReadyConnections(deps.client, requestSync, reason, logger)
    },
    async changesApplied(connectionId) {
      matchInPlace.request(`synced ${connectionId}`)
    },
    settled: () => matchInPlace.settled(),
  }
}

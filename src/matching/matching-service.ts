import type { Queue, Worker } from 'bullmq'
import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  createBackendQueue,
  createBackendWorker,
  MATCHING_JOB_ID,
  MATCHING_JOB_OPTIONS,
  MATCHING_QUEUE,
  MATCHING_SCHEDULER,
  type MatchingJobData,
  type QueueBackendConfig,
} from '../queue/index.js'
import { countPendingMatches, enqueueMatches, enqueueUnseenMatches, type Database } from '../store/index.js'
import type { Actor } from '../users/index.js'
import { DEFAULT_MATCH_CONFIG, type MatchConfig } from '../matcher/index.js'
import { runMatching, type MatchingDeps, type MatchRunSummary } from './run-matching.js'
import {
  changeAutoApplyMode,
  readAutoApplyMode,
  type AutoApplyMode,
  type AutoApplyState,
} from './auto-apply-mode.js'
import { trustReport, type TrustReport, type TrustReportRequest } from './trust-report.js'

export type MatchingServiceDeps = {
  db: Kysely<Database>
  /** The store's schema: scopes the matching lock. */
  schema: string
  backend: QueueBackendConfig
  clock: Clock
  logger: Logger
  config?: MatchConfig
  /** The automatic-matching mode while none is stored (MATCH_AUTO_APPLY). @defaultValue 'on' */
  autoApply?: AutoApplyMode
}

/**
 * The matching run as the sidecar uses it (SidecarContext.matching): the outbox drained here or through the
 * queue, the automatic-matching mode and the trust report that measures the engine. A person's closing work is
 * src/closing's, which runs matching after each action.
 */
export type MatchingService = {
  /** What a run needs (store, lock namespace, clock, logger, configuration), for runs in place. */
  readonly runDeps: MatchingDeps
  /** Invoices were inserted, changed or voided: match them and the payments that may name them again. */
  invoicesChanged(ids: readonly string[]): Promise<void>
  /** Queues a matching run (a worker drains the outbox). */
  requestRun(reason: string): Promise<void>
  /** Drains the outbox in this process now. */
  runNow(): Promise<MatchRunSummary>
  /** The automatic-matching mode in force (docs/matching.md, shadow mode). */
  autoApplyMode(): Promise<AutoApplyState>
  /** Changes it for every process from their next matching run; recorded in the audit log with `actor`. */
  setAutoApplyMode(mode: AutoApplyMode, actor: Actor): Promise<AutoApplyState>
  /** What the engine would have done (shadow) or did (on) in the days asked, and how people decided. */
  trustReport(request: TrustReportRequest): Promise<TrustReport>
  /** The matching queue, for metrics and the queue board. */
  readonly queue: Queue
  /** Starts the worker and the schedule (worker role). */
  startWorker(options: { scheduleSeconds: number; concurrency?: number }): Promise<Worker>
  close(): Promise<void>
}

export function createMatchingService(deps: MatchingServiceDeps): MatchingService {
  const queue: Queue<MatchingJobData> = createBackendQueue<MatchingJobData>(MATCHING_QUEUE, deps.backend)
  const autoApply = deps.autoApply ?? 'on'
  const runDeps: MatchingDeps = {
    db: deps.db,
    lockNamespace: deps.schema,
    clock: deps.clock,
    logger: deps.logger,
    config: deps.config ?? DEFAULT_MATCH_CONFIG,
    autoApply,
  }
  const requestRun = async (reason: string) => {
    await queue.add('run', { reason }, { ...MATCHING_JOB_OPTIONS, jobId: MATCHING_JOB_ID })
  }
  const runNow = () => runMatching(runDeps)
  let worker: Worker | null = null
  return {
    runDeps,
    queue: queue as Queue,
    async invoicesChanged(ids) {
      await enqueueMatches(deps.db, 'invoice', ids)
      await requestRun('invoices-changed')
    },
    requestRun,
    runNow,
    autoApplyMode: () => readAutoApplyMode(deps.db, autoApply),
    setAutoApplyMode: (mode, actor) =>
      changeAutoApplyMode(deps.db, { mode, actor, now: deps.clock.now(), fallback: autoApply }),
    trustReport: (request) => trustReport(deps.db, request),
    async startWorker(options) {
      worker = createBackendWorker<MatchingJobData, MatchRunSummary>(
        MATCHING_QUEUE,
        deps.backend,
        async (job) => {
          if (job.data.sweep) await enqueueUnseenMatches(deps.db, 1000)
          return runNow()
        },
        { concurrency: options.concurrency ?? 1 },
      ) as unknown as Worker
      // A trigger that came while the run was active found its job id taken; the outbox still holds its work.
      worker.on('completed', () => {
        void countPendingMatches(deps.db)
          .then((pending) => (pending > 0 ? requestRun('follow-up') : undefined))
          .catch((error) => deps.logger.error({ err: error }, 'could not queue a follow-up matching run'))
      })
      worker.on('failed', (job, error) =>
        deps.logger.warn({ err: error, jobId: job?.id }, 'matching run failed'),
      )
      worker.on('error', (error) => deps.logger.error({ err: error, queue: MATCHING_QUEUE }, 'worker error'))
      await queue.upsertJobScheduler(
        MATCHING_SCHEDULER,
        { every: options.scheduleSeconds * 1000 },
        { name: 'sweep', data: { reason: 'schedule', sweep: true } },
      )
      return worker
    },
    async close() {
      await worker?.close()
      await queue.close()
    },
  }
}

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
import {
  countPendingMatches,
  enqueueMatches,
  enqueueUnseenMatches,
  type Database,
  type DispositionRow,
  type MatchTransactionRow,
  type RemittanceImportRow,
} from '../store/index.js'
import type { Actor } from '../users/index.js'
import { DEFAULT_MATCH_CONFIG, type MatchConfig } from '../matcher/index.js'
import type { Publish } from './apply-match-result.js'
import { matchReport } from './match-report.js'
import { NO_APPROVALS, ledgerChartOf } from '../controls/index.js'
import { dispose, type Controls, type DispositionRequest } from './dispositions.js'
import { decideDisposition, undoDisposition } from './disposition-decisions.js'
import { decideRemittance } from './remittance-decisions.js'
import { writeOffInvoice, type InvoiceWriteOffRequest } from './invoice-write-offs.js'
import {
  acceptSuggestion,
  addManualMatch,
  declineSuggestion,
  giveBack,
  removeAllocation,
  type ManualMatchMode,
  type PersonInputDeps,
} from './person-inputs.js'
import { importRemittance, type RemittanceAdvice, type RemittanceResult } from './remittance.js'
import { runMatching, runMatchingWithin, type MatchRunSummary } from './run-matching.js'
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
  publish: Publish
  config?: MatchConfig
  /** The approval policy and the chart of accounts (issue 26); default: nothing waits, the default chart. */
  controls?: Controls
  /** The automatic-matching mode while none is stored (MATCH_AUTO_APPLY). @defaultValue 'on' */
  autoApply?: AutoApplyMode
}

/** Matching as the sidecar uses it (SidecarContext.matching). */
export type MatchingService = {
  /** Invoices were inserted, changed or voided: match them and the payments that may name them again. */
  invoicesChanged(ids: readonly string[]): Promise<void>
  /** Queues a matching run (a worker drains the outbox). */
  requestRun(reason: string): Promise<void>
  /** Drains the outbox in this process now. */
  runNow(): Promise<MatchRunSummary>
  /** Drains the outbox in this process now unless another run holds the matching lock for `waitMs` (then null). */
  runWithin(waitMs: number): Promise<MatchRunSummary | null>
  /** A person's inputs, each recorded with `actor` (audit log, manual match, the allocation it produces). */
  manualMatch(
    input: { transactionId: string; invoiceId: string; amount?: string; mode?: ManualMatchMode },
    actor: Actor,
  ): Promise<void>
  /** Settles a bank line by its remittance advice (all its matches and the fee write-off, or nothing). */
  importRemittance(
    transactionId: string,
    advice: RemittanceAdvice | ((transaction: MatchTransactionRow) => RemittanceAdvice),
    actor: Actor,
  ): Promise<RemittanceResult>
  unmatch(allocationId: string, actor: Actor): Promise<{ transactionId: string }>
  /** Removes a person's matches of a transaction: the engine matches it again. */
  giveBack(transactionId: string, actor: Actor): Promise<{ removed: number }>
  dispose(key: string, request: DispositionRequest, actor: Actor): Promise<DispositionRow>
  /** Writes (part of) an invoice's open rest off: a disposition of the invoice. */
  writeOffInvoice(invoiceId: string, request: InvoiceWriteOffRequest, actor: Actor): Promise<DispositionRow>
  decideDisposition(
    id: string,
    decision: 'approve' | 'decline',
    actor: Actor,
    note?: string,
  ): Promise<DispositionRow>
  undoDisposition(id: string, actor: Actor): Promise<DispositionRow>
  /** Approves or declines (withdraws) a remittance import waiting for approval. */
  decideRemittance(
    id: string,
    decision: 'approve' | 'decline',
    actor: Actor,
    note?: string,
  ): Promise<RemittanceImportRow>
  acceptSuggestion(key: string, actor: Actor): Promise<{ transactionId: string }>
  rejectSuggestion(key: string, actor: Actor): Promise<{ transactionId: string }>
  /** The automatic-matching mode in force (docs/matching.md, shadow mode). */
  autoApplyMode(): Promise<AutoApplyState>
  /** Changes it for every process from their next matching run; recorded in the audit log with `actor`. */
  setAutoApplyMode(mode: AutoApplyMode, actor: Actor): Promise<AutoApplyState>
  /** What the engine would have done (shadow) or did (on) in the days asked, and how people decided. */
  trustReport(request: TrustReportRequest): Promise<TrustReport>
  /** Share of all inflows fully matched, for the bankrec_match_rate gauge; NaN without inflows. */
  matchRate(): Promise<number>
  /** The matching queue, for metrics and the queue board. */
  readonly queue: Queue
  /** Starts the worker and the schedule (worker role). */
  startWorker(options: { scheduleSeconds: number; concurrency?: number }): Promise<Worker>
  close(): Promise<void>
}

export function createMatchingService(deps: MatchingServiceDeps): MatchingService {
  const queue: Queue<MatchingJobData> = createBackendQueue<MatchingJobData>(MATCHING_QUEUE, deps.backend)
  const matchingDeps = {
    db: deps.db,
    lockNamespace: deps.schema,
    clock: deps.clock,
    logger: deps.logger,
    publish: deps.publish,
    config: deps.config ?? DEFAULT_MATCH_CONFIG,
    autoApply: deps.autoApply ?? 'on',
  }
  const controls: Controls = deps.controls ?? {
    policy: NO_APPROVALS,
    chart: ledgerChartOf(undefined, {
      account: matchingDeps.config.writeOffAccount,
      byReason: matchingDeps.config.writeOffAccounts,
    }),
  }
  const person = (actor: Actor): PersonInputDeps & { controls: Controls } => ({
    db: deps.db,
    lockNamespace: deps.schema,
    now: deps.clock.now(),
    actor,
    controls,
  })
  const requestRun = async (reason: string) => {
    await queue.add('run', { reason }, { ...MATCHING_JOB_OPTIONS, jobId: MATCHING_JOB_ID })
  }
  const runNow = () => runMatching(matchingDeps)
  const runWithin = (waitMs: number) => runMatchingWithin(matchingDeps, waitMs)
  /** A person's action, then a matching run, so the answer shows what the engine made of it. */
  const afterwardsRun = async <T>(action: Promise<T>): Promise<T> => {
    const result = await action
    await runNow()
    return result
  }
  let worker: Worker | null = null
  return {
    queue: queue as Queue,
    async invoicesChanged(ids) {
      await enqueueMatches(deps.db, 'invoice', ids)
      await requestRun('invoices-changed')
    },
    requestRun,
    runNow,
    runWithin,
    manualMatch: (input, actor) => afterwardsRun(addManualMatch(person(actor), input)),
    importRemittance: (transactionId, advice, actor) =>
      afterwardsRun(
        importRemittance({ ...person(actor), config: matchingDeps.config }, transactionId, advice),
      ),
    decideRemittance: (id, decision, actor, note) =>
      afterwardsRun(decideRemittance(person(actor), id, decision, note)),
    unmatch: (allocationId, actor) => afterwardsRun(removeAllocation(person(actor), allocationId)),
    giveBack: (transactionId, actor) => afterwardsRun(giveBack(person(actor), transactionId)),
    dispose: (key, request, actor) => afterwardsRun(dispose(person(actor), key, request)),
    writeOffInvoice: (invoiceId, request, actor) =>
      afterwardsRun(writeOffInvoice({ ...person(actor), config: matchingDeps.config }, invoiceId, request)),
    decideDisposition: (id, decision, actor, note) =>
      afterwardsRun(decideDisposition(person(actor), id, decision, note)),
    undoDisposition: (id, actor) => afterwardsRun(undoDisposition(person(actor), id)),
    acceptSuggestion: (key, actor) => afterwardsRun(acceptSuggestion(person(actor), key)),
    rejectSuggestion: (key, actor) => afterwardsRun(declineSuggestion(person(actor), key)),
    autoApplyMode: () => readAutoApplyMode(deps.db, matchingDeps.autoApply),
    setAutoApplyMode: (mode, actor) =>
      changeAutoApplyMode(deps.db, { mode, actor, now: deps.clock.now(), fallback: matchingDeps.autoApply }),
    trustReport: (request) => trustReport(deps.db, request),
    async matchRate() {
      const report = await matchReport(deps.db, { asOf: deps.clock.now() })
      return report.matchRate ?? Number.NaN
    },
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

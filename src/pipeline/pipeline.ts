import type { Queue, Worker } from 'bullmq'
import type { Kysely } from 'kysely'
import type pg from 'pg'
import {
  deadLetterNotice,
  syncQuarantineNotice,
  uninterpretableEventNotice,
  type AlertConfig,
} from '../alerts/index.js'
import type { BankClient } from '../api-client/index.js'
import { startAppEventDelivery, type AppEventDelivery } from '../app-events/index.js'
import type { Clock } from '../clock/index.js'
import type { BankrecEnv } from '../config/index.js'
import type { Logger } from '../observability/index.js'
import {
  CONNECTION_HEALTH_QUEUE,
  createBackendQueue,
  createInboxForwarder,
  MATCHING_SCHEDULE_SECONDS,
  SAFETY_NET_SYNC_SCHEDULER,
  type ConnectionSyncJobData,
  type HealthTickJobData,
  type QueueBackendConfig,
} from '../queue/index.js'
import { balanceCheckAfterSync } from '../balance-proof/index.js'
import { createEventWorker, type ConnectionLookup } from '../webhook-events/index.js'
import { createSyncWorker, type SyncWorkerDeps } from '../sync/index.js'
import { type MatchingService } from '../matching/index.js'
import { createAlertDeliveryWorker, type AlertPipeline } from '../alert-delivery/index.js'
import {
  createHealthTickWorker,
  scheduleHealthTicks,
  type ConnectionHealthMonitor,
} from '../connection-health/index.js'
import type { Database } from '../store/index.js'
import { startTransferTracker, type TrackerContext, type TransferTracker } from '../transfers/index.js'
import { pipelineStages, type PipelineStages } from './stages.js'

export type PipelineDeps = {
  config: BankrecEnv
  logger: Logger
  clock: Clock
  store: { db: Kysely<Database>; pool: pg.Pool; schema: string; connectionString: string }
  client: BankClient
  backend: QueueBackendConfig
  syncQueue: Queue<ConnectionSyncJobData>
  matching: MatchingService
  alerts: AlertPipeline
  alertConfig: AlertConfig
  connectionHealth: ConnectionHealthMonitor
  connectionLookup: ConnectionLookup
  /** What the transfer tracker needs (the API's transfer context, the poll schedule, reminders). */
  tracker: TrackerContext
}

/** The worker role's outbound side: the transfer tracker and the delivery of app events. */
export type OutboundWorkers = {
  tracker: TransferTracker
  appEvents: AppEventDelivery
  close(): Promise<void>
}

export type RunningWorkers = {
  outbound: OutboundWorkers
  /** Queues the workers opened for themselves (the health tick), for metrics and the queue board. */
  queues: Queue[]
  /** Redis only: events accepted into the receiver's inbox and not yet forwarded, and its dead letters. */
  inbox?: { backlog(): Promise<number>; deadLetters(): Promise<number> }
  /** Waits for running jobs up to SHUTDOWN_TIMEOUT_SECONDS, then stops every worker and schedule. */
  close(): Promise<void>
}

export type Pipeline = PipelineStages & {
  /** Starts every worker of the worker role, its schedules and the start-up sync (stages.ts says who hands to whom). */
  startWorkers(): Promise<RunningWorkers>
}

/** The stages of every role (requests from the API and CLI) and, for the worker role, every worker. */
export function createPipeline(deps: PipelineDeps): Pipeline {
  let syncDeps: SyncWorkerDeps | undefined
  const stages = pipelineStages({
    db: deps.store.db,
    client: deps.client,
    logger: deps.logger,
    syncQueue: deps.syncQueue,
    matching: deps.matching,
    sync: () => syncDeps,
  })
  const { settled: _settled, ...requests } = stages
  return {
    ...requests,
    async startWorkers() {
      syncDeps = syncWorkerDeps(deps, stages)
      return startWorkers(deps, stages, syncDeps)
    },
  }
}

function syncWorkerDeps(deps: PipelineDeps, stages: PipelineStages): SyncWorkerDeps {
  const { store, config, logger, clock } = deps
  return {
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
    onChangesApplied: (connectionId) => stages.changesApplied(connectionId),
    onSynced: balanceCheckAfterSync({ db: store.db, client: deps.client, clock, logger }),
  }
}

async function startWorkers(
  deps: PipelineDeps,
  stages: PipelineStages & { settled(): Promise<void> },
  syncDeps: SyncWorkerDeps,
): Promise<RunningWorkers> {
  const { store, config, logger, clock, backend } = deps
  const closers: Array<() => Promise<void>> = []
  const close = async () => {
    for (const step of closers.reverse()) {
      await step().catch((error) => logger.error({ err: error }, 'error while stopping a worker'))
    }
  }
  try {
    let inbox: RunningWorkers['inbox']
    if (backend.kind === 'redis') {
      // The receiver (here or in another process) appends to the inbox; the workers move it into BullMQ.
      const forwarder = createInboxForwarder({
        url: backend.url,
        prefix: backend.prefix,
        onError: (error) => logger.error({ err: error }, 'webhook inbox forwarding failed'),
        onDeadLetter: (dead) => {
          const { eventId, type, reason, list } = dead
          logger.error({ eventId, type, reason, list }, 'accepted webhook event set aside as a dead letter')
          deps.alerts
            .publish([deadLetterNotice(dead, clock.now())])
            .catch((error: unknown) => logger.error({ err: error, eventId }, 'dead-letter alert failed'))
        },
      })
      forwarder.start()
      inbox = { backlog: () => forwarder.backlog(), deadLetters: () => forwarder.deadLetters() }
      closers.push(async () => {
        // Whatever the receiver accepted before the stop goes into the queue now, not on the next start.
        try {
          await forwarder.forwardPending()
        } finally {
          await forwarder.close()
        }
      })
    }
    const workers = [
      createEventWorker({
        db: store.db,
        backend,
        logger,
        concurrency: config.WORKER_CONCURRENCY,
        jobLockMs: config.JOB_LOCK_SECONDS * 1000,
        clock,
        effects: {
          requestSync: stages.syncConnection,
          requestSyncOfAll: stages.requestSyncOfAll,
          lookupConnection: deps.connectionLookup.lookupConnection,
          recordConnection: deps.connectionLookup.recordConnection,
          onStatusChanged: (change) => deps.connectionHealth.observeStatusChange(change),
          onUninterpretable: (event) =>
            deps.alerts.publish([
              uninterpretableEventNotice({ ...event, occurredAt: clock.now().toISOString() }),
            ]),
        },
      }),
      createSyncWorker(syncDeps),
      createAlertDeliveryWorker({
        db: store.db,
        backend,
        config: deps.alertConfig,
        logger,
        clock,
        concurrency: config.WORKER_CONCURRENCY,
      }),
      createHealthTickWorker({ backend, monitor: deps.connectionHealth, alerts: deps.alerts, logger }),
    ] as unknown as Worker[]
    for (const worker of workers) {
      worker.on('failed', (job, error) =>
        logger.warn({ err: error, jobId: job?.id, queue: worker.name }, 'job failed'),
      )
      worker.on('error', (error) => logger.error({ err: error, queue: worker.name }, 'worker error'))
    }
    workers.push(await deps.matching.startWorker({ scheduleSeconds: MATCHING_SCHEDULE_SECONDS }))
    // Runs last: a matching run the workers started in place finishes before the store closes.
    closers.push(() => stages.settled())
    closers.push(() => closeWorkers(workers, config.SHUTDOWN_TIMEOUT_SECONDS * 1000, logger))

    const outbound = await startOutbound(deps)
    closers.push(() => outbound.close())
    const healthQueue = createBackendQueue<HealthTickJobData>(CONNECTION_HEALTH_QUEUE, backend)
    closers.push(() => healthQueue.close())
    await scheduleHealthTicks(healthQueue, config.ALERT_TICK_SECONDS)
    await deps.syncQueue.upsertJobScheduler(
      SAFETY_NET_SYNC_SCHEDULER,
      { every: config.SYNC_INTERVAL_SECONDS * 1000 },
      { name: 'sync-all', data: { connectionId: '*', reason: 'schedule' } },
    )
    await stages
      .requestSyncOfAll('start-up')
      .catch((error) => logger.warn({ err: error }, 'start-up sync request failed; the schedule will retry'))
    return { outbound, queues: [healthQueue as Queue], inbox, close }
  } catch (error) {
    await close()
    throw error
  }
}

async function startOutbound(deps: PipelineDeps): Promise<OutboundWorkers> {
  const { config } = deps
  const appEvents = await startAppEventDelivery({
    db: deps.store.db,
    connectionString: deps.store.connectionString,
    schema: deps.store.schema,
    backend: deps.backend,
    clock: deps.clock,
    logger: deps.logger,
    target:
      config.APP_WEBHOOK_URL && config.APP_WEBHOOK_SECRET
        ? { url: config.APP_WEBHOOK_URL, secret: config.APP_WEBHOOK_SECRET }
        : null,
    rescanSeconds: config.APP_EVENTS_RESCAN_SECONDS,
    concurrency: config.WORKER_CONCURRENCY,
  })
  const tracker = startTransferTracker(deps.tracker, { scanSeconds: config.TRANSFER_SCAN_SECONDS })
  return {
    tracker,
    appEvents,
    async close() {
      await tracker.close()
      await appEvents.close()
    },
  }
}

/** Waits for running jobs; past the timeout BullMQ hands them to another worker once their lock expires. */
async function closeWorkers(workers: Worker[], timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const finished = Promise.all(workers.map((w) => w.close())).then(() => true)
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))
  const inTime = await Promise.race([finished, timedOut])
  clearTimeout(timer)
  if (!inTime) logger.warn({ timeoutMs }, 'jobs still running at the shutdown timeout; they will be retried')
}

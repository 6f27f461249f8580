import type { Queue, Worker } from 'bullmq'
import { deadLetterNotice, type AlertConfig } from '../alerts/index.js'
import { startAppEventDelivery, type AppEventDelivery } from '../app-events/index.js'
import type { Logger } from '../observability/index.js'
import {
  CONNECTION_HEALTH_QUEUE,
  createBackendQueue,
  createInboxForwarder,
  createPostgresInboxForwarder,
  MATCHING_SCHEDULE_SECONDS,
  SAFETY_NET_SYNC_SCHEDULER,
  type HealthTickJobData,
} from '../queue/index.js'
import { createEventRetention, createEventWorker } from '../webhook-events/index.js'
import { createSyncWorker } from '../sync/index.js'
import { createAlertDeliveryWorker } from '../alert-delivery/index.js'
import { createHealthTickWorker, scheduleHealthTicks } from '../connection-health/index.js'
import { startTransferTracker, type TrackerContext, type TransferTracker } from '../transfers/index.js'
import { syncRequests, workerStages, type StageDeps } from './stages.js'

export type WorkerRoleDeps = StageDeps & {
  alertConfig: AlertConfig
  /** What the transfer tracker needs (the API's transfer context, the poll schedule, reminders). */
  tracker: TrackerContext
}

/** The worker role's outbound side: the transfer tracker and the delivery of app events. */
export type OutboundWorkers = {
  tracker: TransferTracker
  appEvents: AppEventDelivery
  close(): Promise<void>
}

export type WorkerRole = {
  outbound: OutboundWorkers
  /** Queues the workers opened for themselves (the health tick), for metrics and the queue board. */
  queues: Queue[]
  /** Events accepted into the receiver's inbox and not yet forwarded, and (Redis only) its dead letters. */
  inbox?: { backlog(): Promise<number>; deadLetters?(): Promise<number> }
  /** Waits for running jobs up to SHUTDOWN_TIMEOUT_SECONDS, then stops every worker and schedule. */
  close(): Promise<void>
}

/**
 * Starts the worker role: every worker of the stages (src/pipeline/stages.ts says who hands to whom), their
 * schedules, the outbound side and the start-up sync.
 */
export async function startWorkerRole(deps: WorkerRoleDeps): Promise<WorkerRole> {
  const requests = syncRequests(deps)
  const stages = workerStages(deps, requests)
  const { store, config, logger, clock, backend } = deps
  const closers: Array<() => Promise<void>> = []
  const close = async () => {
    for (const step of closers.reverse()) {
      await step().catch((error) => logger.error({ err: error }, 'error while stopping a worker'))
    }
  }
  try {
    let inbox: WorkerRole['inbox']
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
    } else {
      // The same on PostgreSQL: the receiver writes its inbox rows under a storm, the workers add their jobs.
      const forwarder = createPostgresInboxForwarder({
        db: store.db,
        backend,
        onError: (error) => logger.error({ err: error }, 'webhook inbox forwarding failed'),
      })
      forwarder.start()
      inbox = { backlog: () => forwarder.backlog() }
      closers.push(async () => {
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
        effects: stages.eventEffects,
        retention: createEventRetention({
          db: store.db,
          clock,
          logger,
          processedDays: config.PROCESSED_EVENTS_RETENTION_DAYS,
          uninterpretableDays: config.UNINTERPRETABLE_EVENTS_RETENTION_DAYS,
        }),
      }),
      createSyncWorker(stages.syncWorker),
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
    await requests
      .requestSyncOfAll('start-up')
      .catch((error) => logger.warn({ err: error }, 'start-up sync request failed; the schedule will retry'))
    return { outbound, queues: [healthQueue as Queue], inbox, close }
  } catch (error) {
    await close()
    throw error
  }
}

async function startOutbound(deps: WorkerRoleDeps): Promise<OutboundWorkers> {
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
    sendConcurrency: config.APP_EVENTS_CONCURRENCY,
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

import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Queue, Worker } from 'bullmq'
import {
  deadLetterNotice,
  syncQuarantineNotice,
  uninterpretableEventNotice,
  type AlertConfig,
} from '../alerts/index.js'
import { createLimitedServer } from '../http-listener/index.js'
import { createAppEvents } from '../app-events/index.js'
import type { BankrecEnv } from '../config/index.js'
import { systemClock, type Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  createBackendQueue,
  createInboxForwarder,
  createPostgresWebhookEventQueue,
  createRedisWebhookEventQueue,
  describeQueueBackend,
  type WebhookEventQueue,
  WEBHOOK_EVENTS_QUEUE,
} from '../queue/index.js'
import {
  balanceCheckAfterSync,
  CONNECTION_SYNC_QUEUE,
  createEventWorker,
  createMatchingService,
  createSyncWorker,
  requestConnectionSync,
  type ConnectionLookup,
  type ConnectionSyncJobData,
} from '../reconcile/index.js'
import {
  ALERT_DELIVERIES_QUEUE,
  alertConfigOf,
  CONNECTION_HEALTH_QUEUE,
  createAlertDeliveryWorker,
  createAlertPipeline,
  createConnectionHealthMonitor,
  createHealthTickWorker,
  scheduleHealthTicks,
  type AlertDeliveryJobData,
  type HealthTickJobData,
  type AlertPipeline,
} from './alerts/index.js'
import { createUsers } from '../users/index.js'
import { createSidecarAuth } from './auth/index.js'
import type { SidecarContext, SidecarRole } from './context.js'
import { createDrain } from './drain.js'
import { matchConfigOf } from './match-config.js'
import { createSidecarApp } from './http-app.js'
import { createSidecarMetrics, MATCH_RATE_GAUGE } from './metrics.js'
import { openBank } from './open-bank.js'
import { openStore } from './open-store.js'
import { queueBackendFor } from './queue-backend.js'
import { persistenceWarning, readRedisPersistence } from './redis-persistence.js'
import { startOutboundWorkers } from './transfer-services.js'
import { registerWebhook, retireOtherSandboxRegistrations } from './register-webhook.js'
import { sandboxApiToken } from './sandbox-api-token.js'
import { bankConnectionLookup, createKnownSyncRequester } from './known-sync.js'
import { requestSyncOfAllReadyConnections } from './sync-all.js'
import { createWebhookSecrets } from './webhook-secrets.js'

export type SidecarOptions = {
  config: BankrecEnv
  roles: ReadonlySet<SidecarRole>
  logger: Logger
  clock?: Clock
  cwd?: string
  /** In sandbox mode, the port of the in-process bank. */
  sandboxPort?: number
}

export type Sidecar = {
  context: SidecarContext
  /** Base URL of the HTTP server (API, dashboard, webhooks). */
  url: string
  server: Server
  /**
   * Stops gracefully: new requests are answered 503 at once, requests in flight are answered, receiver batches
   * written, running jobs finish (up to SHUTDOWN_TIMEOUT_SECONDS), then the queues, bank and store close.
   */
  close(): Promise<void>
}

/**
 * Starts the roles asked for in one process: the receiver (POST /webhooks), the workers (webhook events,
 * connection syncs, the safety-net schedule) and the HTTP API. Several processes with the worker role may share
 * one database and queue.
 */
export async function startSidecar(options: SidecarOptions): Promise<Sidecar> {
  const { config, logger } = options
  const clock = options.clock ?? systemClock
  const closers: Array<() => Promise<void>> = []
  const closeAll = async () => {
    for (const close of closers.reverse()) {
      await close().catch((error) => logger.error({ err: error }, 'error while stopping'))
    }
  }
  try {
    const store = await openStore(config, logger, options.cwd)
    closers.push(() => store.close())
    const backend = queueBackendFor(config, store.connectionString)
    logger.info({ queue: describeQueueBackend(backend) }, 'queue backend')
    const warnings = backend.kind === 'redis' ? await redisWarnings(backend.url, logger) : []
    const bank = await openBank(config, logger, { sandboxPort: options.sandboxPort })
    closers.push(() => bank.close())
    const syncQueue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    closers.push(() => syncQueue.close())
    const requestSync = (connectionId: string, reason: string) =>
      requestConnectionSync({ db: store.db, queue: syncQueue }, connectionId, reason)
    const alertConfig = alertConfigOf(config)
    const alertQueue = createBackendQueue<AlertDeliveryJobData>(ALERT_DELIVERIES_QUEUE, backend)
    closers.push(() => alertQueue.close())
    const alerts = createAlertPipeline({ db: store.db, queue: alertQueue, config: alertConfig })
    const connectionHealth = createConnectionHealthMonitor({
      db: store.db,
      clock,
      thresholds: alertConfig.thresholds,
      alerts,
      logger,
      bank: bank.client,
    })
    // Only inspected (depth, age, the queue board); the receiver writes through its own WebhookEventQueue.
    const eventsView = createBackendQueue(WEBHOOK_EVENTS_QUEUE, backend)
    closers.push(() => eventsView.close())
    const queues = [eventsView, syncQueue, alertQueue] as Queue[]
    const metrics = createSidecarMetrics({ db: store.db, queues, clock, logger })
    // Events accepted on Redis but not yet forwarded into the webhook-events queue (see webhook-inbox.ts).
    let webhookBacklog: (() => Promise<number>) | undefined
    let webhookDeadLetters: (() => Promise<number>) | undefined
    if (backend.kind === 'redis') {
      metrics.registerGauge({
        name: 'bankrec_webhook_inbox_events',
        help: 'Webhook events accepted by the receiver, waiting in the Redis inbox to be forwarded to the queue',
        collect: () => webhookBacklog?.() ?? Number.NaN,
      })
      metrics.registerGauge({
        name: 'bankrec_webhook_dead_letters',
        help: 'Webhook events accepted (answered 2xx) but set aside in the Redis dead-letter list, never processed',
        collect: () => webhookDeadLetters?.() ?? Number.NaN,
      })
    }
    const webhookSecrets = createWebhookSecrets(store.db, store.secretBox, config.WEBHOOK_SECRETS ?? [], {
      onUnreadable: (registrationId) =>
        logger.error({ registrationId }, 'a stored webhook secret does not open with BANKREC_SECRET_KEY'),
    })
    await webhookSecrets.refresh()
    closers.push(async () => webhookSecrets.stop())

    const apiToken =
      config.KIT_API_TOKEN ??
      (bank.sandbox ? (await sandboxApiToken(bank.sandboxStateFile)).token : undefined)
    if (options.roles.has('api') && !apiToken) {
      throw new Error(
        'KIT_API_TOKEN is required to serve the HTTP API against a real bank (BANK_API_URL is set).',
      )
    }
    const appEvents = createAppEvents(config.APP_WEBHOOK_URL ? { url: config.APP_WEBHOOK_URL } : null)
    const reconcile = createMatchingService({
      db: store.db,
      schema: store.schema,
      backend,
      clock,
      logger,
      publish: appEvents.publish,
      config: matchConfigOf(config),
      approvalThreshold: config.APPROVAL_THRESHOLD_AMOUNT ?? null,
    })
    closers.push(() => reconcile.close())
    queues.push(reconcile.queue)
    metrics.feed(MATCH_RATE_GAUGE, () => reconcile.matchRate())
    const connectionLookup: ConnectionLookup = {
      db: store.db,
      lookupConnection: bankConnectionLookup(bank.client),
      recordConnection: (connection) => connectionHealth.observeConnection(connection, 'poll'),
    }
    const context: SidecarContext = {
      config,
      logger,
      clock,
      store,
      bank,
      backend,
      syncQueue,
      requestSync,
      connectionLookup,
      requestKnownSync: createKnownSyncRequester(connectionLookup, requestSync),
      webhookSecrets,
      alerts,
      connectionHealth,
      apiToken: apiToken ?? '',
      appEvents,
      outbound: null,
      metrics,
      queues,
      reconcile,
      users: createUsers({ db: store.db, clock, builtinName: config.KIT_API_TOKEN_NAME }),
      auth: createSidecarAuth({
        db: store.db,
        apiToken: apiToken ?? '',
        builtinName: config.KIT_API_TOKEN_NAME,
        clock,
        logger,
        registry: metrics.registry,
        failureBurst: config.AUTH_FAILURE_BURST,
        failureRefillSeconds: config.AUTH_FAILURE_REFILL_SECONDS,
      }),
      warnings,
    }

    if (options.roles.has('worker')) {
      if (backend.kind === 'redis') {
        // The receiver (here or in another process) appends to the inbox; the workers move it into BullMQ.
        const forwarder = createInboxForwarder({
          url: backend.url,
          prefix: backend.prefix,
          onError: (error) => logger.error({ err: error }, 'webhook inbox forwarding failed'),
          onDeadLetter: (dead) => {
            const { eventId, type, reason, list } = dead
            logger.error({ eventId, type, reason, list }, 'accepted webhook event set aside as a dead letter')
            alerts
              .publish([deadLetterNotice(dead, clock.now())])
              .catch((error: unknown) => logger.error({ err: error, eventId }, 'dead-letter alert failed'))
          },
        })
        forwarder.start()
        webhookBacklog = () => forwarder.backlog()
        webhookDeadLetters = () => forwarder.deadLetters()
        closers.push(async () => {
          // Whatever the receiver accepted before the stop goes into the queue now, not on the next start.
          try {
            await forwarder.forwardPending()
          } finally {
            await forwarder.close()
          }
        })
      }
      const workers = startWorkers(context, { alerts, alertConfig })
      workers.push(await reconcile.startWorker({ scheduleSeconds: RECONCILE_SCHEDULE_SECONDS }))
      closers.push(() => closeWorkers(workers, context))
      const outbound = await startOutboundWorkers(context)
      context.outbound = outbound
      closers.push(() => outbound.close())
      const healthQueue = createBackendQueue<HealthTickJobData>(CONNECTION_HEALTH_QUEUE, backend)
      closers.push(() => healthQueue.close())
      queues.push(healthQueue as Queue)
      await scheduleHealthTicks(healthQueue, config.ALERT_TICK_SECONDS)
      await syncQueue.upsertJobScheduler(
        'safety-net-sync',
        { every: config.SYNC_INTERVAL_SECONDS * 1000 },
        { name: 'sync-all', data: { connectionId: '*', reason: 'schedule' } },
      )
      await requestSyncOfAllReadyConnections(bank.client, requestSync, 'start-up', logger).catch((error) =>
        logger.warn({ err: error }, 'start-up sync request failed; the schedule will retry'),
      )
    }

    let eventQueue: WebhookEventQueue | undefined
    if (options.roles.has('receiver')) {
      eventQueue =
        backend.kind === 'redis'
          ? createRedisWebhookEventQueue({ url: backend.url, prefix: backend.prefix, forward: false })
          : createPostgresWebhookEventQueue({ db: store.db, backend })
      const queue = eventQueue
      webhookBacklog ??= queue.backlog
      webhookDeadLetters ??= queue.deadLetters
      closers.push(() => queue.close())
    }

    const drain = createDrain()
    const app = createSidecarApp(context, { roles: options.roles, eventQueue, drain })
    const server = createLimitedServer(app)
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(config.PORT, config.HOST, () => {
        server.off('error', reject)
        resolve()
      })
    })
    closers.push(async () => {
      await drain.close(server, config.SHUTDOWN_TIMEOUT_SECONDS * 1000)
      await app.flushReceiver()
    })
    const address = server.address() as AddressInfo
    const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${address.port}`
    if (bank.sandbox && options.roles.has('receiver')) {
      // Sandbox mode wires itself up: the simulated bank delivers to this process.
      const registration = await registerWebhook(bank.client, store.db, store.secretBox, `${url}/webhooks`)
      const retired = await retireOtherSandboxRegistrations(bank.client, store.db, registration.id)
      await webhookSecrets.refresh()
      logger.info({ ...registration, retired }, 'webhook registered with the sandbox')
    }
    logger.info({ url, roles: [...options.roles] }, 'bankrec is running')
    return { context, url, server, close: closeAll }
  } catch (error) {
    await closeAll()
    throw error
  }
}

function startWorkers(
  context: SidecarContext,
  alerting: { alerts: AlertPipeline; alertConfig: AlertConfig },
): Worker[] {
  const { store, logger, config } = context
  const alertWorker = createAlertDeliveryWorker({
    db: store.db,
    backend: context.backend,
    config: alerting.alertConfig,
    logger,
    clock: context.clock,
    concurrency: config.WORKER_CONCURRENCY,
  })
  const healthWorker = createHealthTickWorker({
    backend: context.backend,
    monitor: context.connectionHealth,
    alerts: alerting.alerts,
    logger,
  })
  const eventWorker = createEventWorker({
    db: store.db,
    backend: context.backend,
    logger,
    concurrency: config.WORKER_CONCURRENCY,
    jobLockMs: config.JOB_LOCK_SECONDS * 1000,
    clock: context.clock,
    effects: {
      requestSync: context.requestSync,
      requestSyncOfAll: (reason) =>
        requestSyncOfAllReadyConnections(context.bank.client, context.requestSync, reason, logger).then(
          () => undefined,
        ),
      lookupConnection: context.connectionLookup.lookupConnection,
      recordConnection: context.connectionLookup.recordConnection,
      onStatusChanged: (change) => context.connectionHealth.observeStatusChange(change),
      onUninterpretable: (event) =>
        context.alerts.publish([
          uninterpretableEventNotice({ ...event, occurredAt: context.clock.now().toISOString() }),
        ]),
    },
  })
  const syncWorker = createSyncWorker({
    db: store.db,
    pool: store.pool,
    lockNamespace: store.schema,
    client: context.bank.client,
    clock: context.clock,
    logger,
    queue: context.syncQueue,
    backend: context.backend,
    concurrency: config.WORKER_CONCURRENCY,
    pageSize: config.SYNC_PAGE_SIZE,
    jobLockMs: config.JOB_LOCK_SECONDS * 1000,
    onProblem: async (problem) => {
      if (problem.kind !== 'unreadable_sync_events') return
      const at = context.clock.now().toISOString()
      await alerting.alerts.publish(
        problem.incidents.map((incident) => syncQuarantineNotice(incident, problem.connectionId, at)),
      )
    },
    requestSyncOfAll: () =>
      requestSyncOfAllReadyConnections(context.bank.client, context.requestSync, 'schedule', logger).then(
        () => undefined,
      ),
    recordConnection: (connection) => context.connectionHealth.observeConnection(connection, 'sync'),
    // Matching's outbox already holds the run's changes; its run need not wait for the balance refresh and proof.
    onChangesApplied: (connectionId) =>
      context.reconcile
        .requestRun(`synced ${connectionId}`)
        .catch((error) => logger.error({ err: error, connectionId }, 'could not queue a matching run')),
    onSynced: balanceCheckAfterSync({
      db: store.db,
      client: context.bank.client,
      clock: context.clock,
      logger,
    }),
  })
  for (const worker of [eventWorker, syncWorker, alertWorker, healthWorker]) {
    worker.on('failed', (job, error) =>
      logger.warn({ err: error, jobId: job?.id, queue: worker.name }, 'job failed'),
    )
    worker.on('error', (error) => logger.error({ err: error, queue: worker.name }, 'worker error'))
  }
  return [eventWorker, syncWorker, alertWorker, healthWorker] as unknown as Worker[]
}

/** Reads Redis's persistence settings once: a Redis that keeps nothing loses accepted events on a restart. */
async function redisWarnings(url: string, logger: Logger): Promise<string[]> {
  const persistence = await readRedisPersistence(url)
  if ('unreadable' in persistence) {
    logger.info(
      { reason: persistence.unreadable },
      'could not read Redis persistence settings (CONFIG GET); make sure AOF or RDB snapshots are on',
    )
  }
  const warning = persistenceWarning(persistence)
  if (warning) logger.warn({ redis: { aof: false, rdb: false } }, warning)
  return warning ? [warning] : []
}

/** How often the worker role sweeps for unmatched changes and checks transfers' leg windows. */
const RECONCILE_SCHEDULE_SECONDS = 30

/** Waits for running jobs; past the timeout BullMQ hands them to another worker once their lock expires. */
async function closeWorkers(workers: Worker[], context: SidecarContext): Promise<void> {
  const timeoutMs = context.config.SHUTDOWN_TIMEOUT_SECONDS * 1000
  let timer: NodeJS.Timeout | undefined
  const finished = Promise.all(workers.map((w) => w.close())).then(() => true)
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))
  const inTime = await Promise.race([finished, timedOut])
  clearTimeout(timer)
  if (!inTime)
    context.logger.warn({ timeoutMs }, 'jobs still running at the shutdown timeout; they will be retried')
}

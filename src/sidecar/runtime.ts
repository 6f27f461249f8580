import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Queue } from 'bullmq'
import { createLimitedServer, explainListenError } from '../http-listener/index.js'
import { createAppEvents } from '../app-events/index.js'
import type { BankrecEnv } from '../config/index.js'
import { systemClock, type Clock } from '../clock/index.js'
import { startTracing, type Logger, type TracingEnv } from '../observability/index.js'
import { startWorkerRole, syncRequests, type WorkerRoleDeps } from '../pipeline/index.js'
import {
  ALERT_DELIVERIES_QUEUE,
  APP_EVENTS_QUEUE,
  CONNECTION_SYNC_QUEUE,
  createBackendQueue,
  createPostgresWebhookEventQueue,
  createRedisWebhookEventQueue,
  describeQueueBackend,
  type AlertDeliveryJobData,
  type ConnectionSyncJobData,
  type WebhookEventQueue,
  WEBHOOK_EVENTS_QUEUE,
} from '../queue/index.js'
import { createMatchingService } from '../matching/index.js'
import { createClosingService } from '../closing/index.js'
import { type ConnectionLookup } from '../webhook-events/index.js'
import { alertConfigOf, createAlertPipeline } from '../alert-delivery/index.js'
import { createConnectionHealthMonitor } from '../connection-health/index.js'
import { createUsers } from '../users/index.js'
import { createSidecarAuth } from './auth/index.js'
import type { SidecarContext, SidecarRole } from './context.js'
import { createDrain } from './drain.js'
import { matchConfigOf } from './match-config.js'
import { controlsOf } from './controls-config.js'
import { createSidecarApp } from './http-app.js'
import { createSidecarMetrics, MATCH_RATE_GAUGE } from './metrics.js'
import { openBank } from './open-bank.js'
import { openStore } from './open-store.js'
import { queueBackendFor } from './queue-backend.js'
import { persistenceWarning, readRedisPersistence } from './redis-persistence.js'
import { trackerContextOf } from './transfer-services.js'
import { registerWebhook, retireOtherSandboxRegistrations } from './register-webhook.js'
import { sandboxApiToken } from './sandbox-api-token.js'
import { bankConnectionLookup, createKnownSyncRequester } from './known-sync.js'
import { createWebhookSecrets } from '../webhook-secrets/index.js'

export type SidecarOptions = {
  config: BankrecEnv
  roles: ReadonlySet<SidecarRole>
  logger: Logger
  clock?: Clock
  cwd?: string
  /** In sandbox mode, the port of the in-process bank. */
  sandboxPort?: number
  /** Where the OTEL_* variables are read (tracing). @defaultValue process.env */
  tracingEnv?: TracingEnv
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
    // Before anything else: spans of the start-up (its sync requests) are traced too, and exported last.
    const tracing = await startTracing(options.tracingEnv ?? process.env, logger)
    closers.push(() => tracing.shutdown())
    // A sidecar holds a zero-config data directory itself: a second one there would run a second bank and queue.
    const store = await openStore(config, logger, options.cwd, {
      exclusive: true,
      command: `bankrec (${[...options.roles].join(', ')})`,
    })
    closers.push(() => store.close())
    // Read on scrape; filled as the queues open.
    const queues: Queue[] = []
    const metrics = createSidecarMetrics({ db: store.db, queues, clock, logger })
    const backend = {
      ...queueBackendFor(config, store.connectionString),
      observeJob: metrics.traffic.job,
    }
    logger.info({ queue: describeQueueBackend(backend) }, 'queue backend')
    const warnings = backend.kind === 'redis' ? await redisWarnings(backend.url, logger) : []
    const bank = await openBank(config, logger, {
      sandboxPort: options.sandboxPort,
      onAttemptEnd: metrics.traffic.bankCall,
    })
    closers.push(() => bank.close())
    const syncQueue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    closers.push(() => syncQueue.close())
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
    // The app-events queue is opened by its delivery (worker role, APP_WEBHOOK_URL set); this view puts its depth on
    // the metrics and the queue board in every role.
    const appEventsView = createBackendQueue(APP_EVENTS_QUEUE, backend)
    closers.push(() => appEventsView.close())
    queues.push(eventsView, syncQueue, alertQueue as Queue, appEventsView)
    // Events accepted but not yet forwarded into the webhook-events queue (src/queue/redis-inbox.ts, on PostgreSQL
    // src/queue/postgres-inbox-rows.ts).
    let webhookBacklog: (() => Promise<number>) | undefined
    let webhookDeadLetters: (() => Promise<number>) | undefined
    metrics.registerGauge({
      name: 'bankrec_webhook_inbox_events',
      help: 'Webhook events accepted by the receiver, waiting in the inbox to be forwarded to the queue',
      collect: () => webhookBacklog?.() ?? Number.NaN,
    })
    if (backend.kind === 'redis') {
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
    const matching = createMatchingService({
      db: store.db,
      schema: store.schema,
      backend,
      clock,
      logger,
      config: matchConfigOf(config),
      autoApply: config.MATCH_AUTO_APPLY,
    })
    closers.push(() => matching.close())
    queues.push(matching.queue)
    const closing = createClosingService({
      db: store.db,
      schema: store.schema,
      clock,
      matching,
      config: matchConfigOf(config),
      controls: controlsOf(config),
    })
    metrics.feed(MATCH_RATE_GAUGE, () => closing.matchRate())
    const connectionLookup: ConnectionLookup = {
      db: store.db,
      lookupConnection: bankConnectionLookup(bank.client),
      recordConnection: (connection) => connectionHealth.observeConnection(connection, 'poll'),
    }
    const pipelineDeps: WorkerRoleDeps = {
      config,
      logger,
      clock,
      store,
      client: bank.client,
      backend,
      syncQueue,
      matching,
      alerts,
      alertConfig,
      connectionHealth,
      connectionLookup,
      tracker: trackerContextOf({ config, logger, clock, store, bank, alerts }),
    }
    const { requestSync } = syncRequests(pipelineDeps)
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
      matching,
      closing,
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
      const workerRole = await startWorkerRole(pipelineDeps)
      closers.push(() => workerRole.close())
      context.outbound = workerRole.outbound
      queues.push(...workerRole.queues)
      webhookBacklog = workerRole.inbox?.backlog
      webhookDeadLetters = workerRole.inbox?.deadLetters
    }

    let eventQueue: WebhookEventQueue | undefined
    if (options.roles.has('receiver')) {
      eventQueue =
        backend.kind === 'redis'
          ? createRedisWebhookEventQueue({ url: backend.url, prefix: backend.prefix, forward: false })
          : createPostgresWebhookEventQueue({ db: store.db, pool: store.pool, backend, forward: false })
      const queue = eventQueue
      webhookBacklog ??= queue.backlog
      webhookDeadLetters ??= queue.deadLetters
      closers.push(() => queue.close())
    }

    const drain = createDrain()
    const app = createSidecarApp(context, { roles: options.roles, eventQueue, drain })
    const server = createLimitedServer(app.listener)
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) =>
        reject(explainListenError(error, { port: config.PORT, host: config.HOST, setting: 'PORT' }))
      server.once('error', onError)
      server.listen(config.PORT, config.HOST, () => {
        server.off('error', onError)
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
      // Bound to every interface (the image's HOST=0.0.0.0), it is reached on loopback: the bank delivers there.
      const loopback = { '0.0.0.0': '127.0.0.1', '::': '[::1]' }[config.HOST]
      const local = loopback ? `http://${loopback}:${address.port}` : url
      const registration = await registerWebhook(bank.client, store.db, store.secretBox, `${local}/webhooks`)
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

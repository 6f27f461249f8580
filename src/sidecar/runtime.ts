import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Queue, Worker } from 'bullmq'
import type { BankrecEnv } from '../config/index.js'
import { systemClock, type Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  createBackendQueue,
  createPostgresWebhookEventQueue,
  createRedisWebhookEventQueue,
  describeQueueBackend,
  type QueueBackendConfig,
  type WebhookEventQueue,
} from '../queue/index.js'
import {
  CONNECTION_SYNC_QUEUE,
  createEventWorker,
  createSyncWorker,
  requestConnectionSync,
  type ConnectionSyncJobData,
} from '../reconcile/index.js'
import { createSidecarApp } from './http-app.js'
import { openBank, type OpenBank } from './open-bank.js'
import { openStore, type OpenStore } from './open-store.js'
import { queueBackendFor } from './queue-backend.js'
import { registerWebhook } from './register-webhook.js'
import { requestSyncOfAllReadyConnections } from './sync-all.js'
import { createWebhookSecrets, type WebhookSecrets } from './webhook-secrets.js'

export type SidecarRole = 'receiver' | 'worker' | 'api'

export type SidecarOptions = {
  config: BankrecEnv
  roles: ReadonlySet<SidecarRole>
  logger: Logger
  clock?: Clock
  cwd?: string
  /** In sandbox mode, the port of the in-process bank. */
  sandboxPort?: number
}

/** Everything a running sidecar holds; API routes and commands take what they need from it. */
export type SidecarContext = {
  config: BankrecEnv
  logger: Logger
  clock: Clock
  store: OpenStore
  bank: OpenBank
  backend: QueueBackendConfig
  syncQueue: Queue<ConnectionSyncJobData>
  requestSync(connectionId: string, reason: string): Promise<void>
  webhookSecrets: WebhookSecrets
  /** KIT_API_TOKEN, or one generated for this run in sandbox mode. */
  apiToken: string
}

export type Sidecar = {
  context: SidecarContext
  /** Base URL of the HTTP server (API, dashboard, webhooks). */
  url: string
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
    const bank = await openBank(config, logger, { sandboxPort: options.sandboxPort })
    closers.push(() => bank.close())
    const syncQueue = createBackendQueue<ConnectionSyncJobData>(CONNECTION_SYNC_QUEUE, backend)
    closers.push(() => syncQueue.close())
    const requestSync = (connectionId: string, reason: string) =>
      requestConnectionSync({ db: store.db, queue: syncQueue }, connectionId, reason)
    const webhookSecrets = createWebhookSecrets(store.db, config.WEBHOOK_SECRETS ?? [])
    await webhookSecrets.refresh()
    closers.push(async () => webhookSecrets.stop())

    const apiToken = config.KIT_API_TOKEN ?? (bank.sandbox ? generatedToken() : undefined)
    if (options.roles.has('api') && !apiToken) {
      throw new Error(
        'KIT_API_TOKEN is required to serve the HTTP API against a real bank (BANK_API_URL is set).',
      )
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
      webhookSecrets,
      apiToken: apiToken ?? '',
    }

    if (options.roles.has('worker')) {
      const workers = startWorkers(context)
      closers.push(() => Promise.all(workers.map((w) => w.close())).then(() => undefined))
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
          ? createRedisWebhookEventQueue({ url: backend.url, prefix: backend.prefix })
          : createPostgresWebhookEventQueue({ db: store.db, backend })
      const queue = eventQueue
      closers.push(() => queue.close())
    }

    const app = createSidecarApp(context, { roles: options.roles, eventQueue })
    const server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(config.PORT, config.HOST, (error?: Error) => (error ? reject(error) : resolve(s)))
    })
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeIdleConnections()
        }),
    )
    const address = server.address() as AddressInfo
    const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${address.port}`
    if (bank.sandbox && options.roles.has('receiver')) {
      // Sandbox mode wires itself up: the simulated bank delivers to this process.
      const registration = await registerWebhook(bank.client, store.db, `${url}/webhooks`)
      await webhookSecrets.refresh()
      logger.info(registration, 'webhook registered with the sandbox')
    }
    logger.info({ url, roles: [...options.roles] }, 'bankrec is running')
    return { context, url, close: closeAll }
  } catch (error) {
    await closeAll()
    throw error
  }
}

function startWorkers(context: SidecarContext): Worker[] {
  const { store, logger, config } = context
  const eventWorker = createEventWorker({
    db: store.db,
    backend: context.backend,
    logger,
    concurrency: config.WORKER_CONCURRENCY,
    effects: { requestSync: context.requestSync },
  })
  const syncWorker = createSyncWorker({
    db: store.db,
    pool: store.pool,
    client: context.bank.client,
    clock: context.clock,
    logger,
    queue: context.syncQueue,
    backend: context.backend,
    concurrency: config.WORKER_CONCURRENCY,
    requestSyncOfAll: () =>
      requestSyncOfAllReadyConnections(context.bank.client, context.requestSync, 'schedule', logger).then(
        () => undefined,
      ),
  })
  for (const worker of [eventWorker, syncWorker]) {
    worker.on('failed', (job, error) =>
      logger.warn({ err: error, jobId: job?.id, queue: worker.name }, 'job failed'),
    )
    worker.on('error', (error) => logger.error({ err: error, queue: worker.name }, 'worker error'))
  }
  return [eventWorker as unknown as Worker, syncWorker as unknown as Worker]
}

function generatedToken(): string {
  return `kit_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url')}`
}

import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { sql } from 'kysely'
import { createBankClient, type BankClient } from '../../../src/api-client/index.js'
import { createVirtualClock } from '../../../src/clock/index.js'
import {
  CONNECTION_SYNC_QUEUE,
  createBackendQueue,
  isRefreshJobId,
  WEBHOOK_EVENTS_QUEUE,
  type QueueBackendConfig,
} from '../../../src/queue/index.js'
import type { SandboxOptions } from '../../../src/sandbox/index.js'
import { startSandbox, type SandboxHarness } from '../sandbox-harness.js'
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
  TEST_SECRET_KEY,
} from '../test-database.js'
import { freePort } from './free-port.js'
import { runBankrec, spawnBankrec, tail, type BankrecProcess } from './bankrec-process.js'

export type ChaosQueue = 'redis' | 'postgres'

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

export type ClusterOptions = {
  /** Names the schema, queue prefix and log directory. */
  label: string
  queue: ChaosQueue
  workers: number
  /** Sandbox settings (seed, sync durations, …); the clock follows real time unless one is given. */
  sandbox?: SandboxOptions
  /** Extra environment of every bankrec process (e.g. SYNC_PAGE_SIZE, JOB_LOCK_SECONDS). */
  env?: Record<string, string>
  /** Runs on the migrated schema before any bankrec process starts (e.g. audit triggers). */
  prepareDatabase?(database: TestDatabase): Promise<void>
  /** The Redis of the redis queue. @defaultValue TEST_REDIS_URL */
  redisUrl?: string
  /** Roles of the receiver process (`bankrec start --roles`). @defaultValue ['receiver'] */
  receiverRoles?: Array<'receiver' | 'api'>
  /** Further queues counted by queueCounts() and so waited for by quiesce() (e.g. app-events, reconcile). */
  watchQueues?: string[]
  /** How long each bankrec process may take to announce its URL. @defaultValue spawnBankrec's (180 s) */
  startTimeoutMs?: number
}

export type Cluster = {
  sandbox: SandboxHarness
  /** A client of the sandbox's /v1 API for the scenario's own calls (retries faults like any client). */
  bank: BankClient
  database: TestDatabase
  schema: string
  queuePrefix: string
  receiver: BankrecProcess
  /** KIT_API_TOKEN of every process (the receiver serves /api when started with the api role). */
  apiToken: string
  /** The prefix of every bankrec session's application_name (PGAPPNAME `<prefix>_<role>`). */
  applicationName: string
  /** Worker processes by slot; a slot is undefined while its process is down. */
  workers: Array<BankrecProcess | undefined>
  /** SIGKILLs the worker in `slot`. */
  killWorker(slot: number): Promise<void>
  /** Starts a worker process in an empty `slot`. */
  startWorker(slot: number): Promise<BankrecProcess>
  /**
   * What a supervisor does: starts again every process that exited without being killed by the test (the
   * receiver on its same port); answers the names of those restarted.
   */
  reviveExited(): Promise<string[]>
  /** pg_terminate_backend of every database session of every bankrec process; answers how many were ended. */
  terminateDatabaseSessions(): Promise<number>
  /** The worker slots whose processes hold a connection's sync lock right now (a sync is running there). */
  syncingWorkers(connectionIds: readonly string[]): Promise<Array<{ slot: number; connectionId: string }>>
  /** `bankrec sync <connectionId>`, as an operator would run it; answers the connection's request count after. */
  requestSync(connectionId: string): Promise<bigint>
  /** Jobs per state of the webhook-event and connection-sync queues. */
  queueCounts(): Promise<Record<string, Record<string, number>>>
  /** Re-reads of connections that caught-up syncs owe (delayed connection-sync jobs, RefreshPacing). */
  owedRefreshes(): Promise<number>
  /** A job's state, attempts and last failure, for failure messages. */
  describeJob(queue: string, jobId: string): Promise<string>
  /** Failed jobs of both queues with their options and reason, for failure messages. */
  failedJobs(): Promise<Array<{ queue: string; id: string | undefined; reason: string; opts: unknown }>>
  /** The last lines of every process log, for failure messages. */
  logTails(lines?: number): string
  close(): Promise<void>
}

/**
 * A whole bankrec deployment on loopback, for chaos tests: the sandbox bank in this process, a receiver process
 * (`bankrec start --roles receiver`) registered with the bank for webhooks, and N `bankrec worker` processes that
 * can be SIGKILLed and restarted, all on one test schema and queue prefix. close() stops every process and
 * removes the schema, the queue schema or Redis keys, and the logs.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const suffix = randomBytes(4).toString('hex')
  const label = options.label.replace(/[^a-z0-9]/g, '_')
  const queuePrefix = `chaos-${label}-${suffix}`
  const appName = `chaos_${suffix}`
  const logDir = mkdtempSync(path.join(tmpdir(), `bankrec-chaos-${label}-`))
  // CHAOS_KEEP_LOGS=1 keeps the process logs for a post-mortem (their directory is printed with every failure).
  const cleanups: Array<() => Promise<void>> = [
    async () => {
      if (!process.env.CHAOS_KEEP_LOGS) rmSync(logDir, { recursive: true, force: true })
    },
  ]
  const cleanUp = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined)
  }
  const processes: BankrecProcess[] = []
  try {
    const sandbox = await startSandbox({
      clock: createVirtualClock({ start: new Date('2026-03-02T09:00:00Z'), followRealTime: true }),
      scheduledSyncIntervalSeconds: 0,
      ...options.sandbox,
    })
    cleanups.push(() => sandbox.close())
    const bank = createBankClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.apiKey,
      allowHttpLoopbackWebhooks: true,
      maxRetries: 8,
    })

    const database = await createTestDatabase(`chaos_${label}`)
    const schema = database.schema
    cleanups.push(async () => {
      await sql`drop schema if exists ${sql.id(`${schema}_queue`)} cascade`.execute(database.db)
      await database.drop()
    })
    const redisUrl = options.redisUrl ?? TEST_REDIS_URL
    if (options.queue === 'redis') cleanups.push(() => deleteRedisKeys(redisUrl, queuePrefix))
    await options.prepareDatabase?.(database)

    // Registered before the receiver exists so its secret can be configured; pointed at it once it listens.
    const registration = await bank.webhooks.create({
      url: 'http://127.0.0.1:9/webhooks',
      events: ['connection.status_changed', 'transactions.sync_available'],
      active: false,
    })
    const apiToken = `chaos-token-${suffix}-${randomBytes(8).toString('hex')}`
    // A fixed port, so that a receiver restarted after a crash is found at the registered URL again.
    const receiverPort = await freePort()
    const env = (role: string): Record<string, string> => ({
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      BANK_API_URL: sandbox.url,
      BANK_API_KEY: sandbox.apiKey,
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: schema,
      QUEUE_PREFIX: queuePrefix,
      ...(options.queue === 'redis' ? { REDIS_URL: redisUrl } : {}),
      WEBHOOK_SECRETS: registration.secret,
      KIT_API_TOKEN: apiToken,
      PORT: role === 'receiver' ? String(receiverPort) : '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      // node-postgres names every session after it: the test sees which process holds which lock.
      PGAPPNAME: `${appName}_${role}`,
      ...options.env,
    })
    const starting = new Set<Promise<BankrecProcess>>()
    const spawnRole = async (name: string, args: string[]) => {
      const spawned = spawnBankrec({
        name,
        args,
        env: env(name),
        logDir,
        startTimeoutMs: options.startTimeoutMs,
      })
      starting.add(spawned)
      try {
        const child = await spawned
        processes.push(child)
        return child
      } finally {
        starting.delete(spawned)
      }
    }
    cleanups.push(async () => {
      // A restart still starting would outlive the clean-up and recreate the schema it just dropped.
      await Promise.allSettled([...starting])
      // A profiled process writes its profile only when it exits by itself.
      await Promise.all(processes.map((p) => (process.env.BENCH_CPU_PROF ? p.stop(30_000) : p.kill())))
    })

    const receiverArgs = ['start', '--roles', (options.receiverRoles ?? ['receiver']).join(',')]
    const [receiver, ...workers] = await Promise.all([
      spawnRole('receiver', receiverArgs),
      ...Array.from({ length: options.workers }, (_, slot) => spawnRole(`worker${slot}`, ['worker'])),
    ])
    await bank.webhooks.update(registration.id, { url: `${receiver!.url}/webhooks`, active: true })

    const backend: QueueBackendConfig =
      options.queue === 'redis'
        ? { kind: 'redis', url: redisUrl, prefix: queuePrefix }
        : { kind: 'postgres', connectionString: TEST_DATABASE_URL, schema: `${schema}_queue` }
    const queues: Record<string, Queue> = Object.fromEntries(
      [WEBHOOK_EVENTS_QUEUE, CONNECTION_SYNC_QUEUE, ...(options.watchQueues ?? [])].map((name) => [
        name,
        createBackendQueue(name, backend),
      ]),
    )
    // A Redis restart is part of some scenarios: the queue reconnects by itself, its errors are only noise.
    for (const queue of Object.values(queues)) queue.on('error', () => undefined)
    cleanups.push(async () => {
      await Promise.all(Object.values(queues).map((q) => q.close()))
    })

    const cluster: Cluster = {
      sandbox,
      bank,
      database,
      schema,
      queuePrefix,
      receiver: receiver!,
      apiToken,
      applicationName: appName,
      workers,
      async killWorker(slot) {
        const worker = cluster.workers[slot]
        cluster.workers[slot] = undefined
        await worker?.kill()
      },
      async startWorker(slot) {
        if (cluster.workers[slot]) throw new Error(`worker slot ${slot} is already running`)
        // Start-up can fail for reasons outside the scenario (Kysely's migrator introspects every schema and
        // trips over another test file dropping its own); a real supervisor restarts it too.
        for (let attempt = 1; ; attempt++) {
          try {
            const worker = await spawnRole(`worker${slot}`, ['worker'])
            cluster.workers[slot] = worker
            return worker
          } catch (error) {
            if (attempt >= 3) throw error
          }
        }
      },
      async reviveExited() {
        const revived: string[] = []
        if (cluster.receiver.exited()) {
          cluster.receiver = await spawnRole('receiver', receiverArgs)
          revived.push('receiver')
        }
        for (const [slot, worker] of cluster.workers.entries()) {
          if (!worker?.exited()) continue
          cluster.workers[slot] = undefined
          await cluster.startWorker(slot)
          revived.push(`worker${slot}`)
        }
        return revived
      },
      async terminateDatabaseSessions() {
        const { rows } = await sql<{ ended: boolean }>`
          select pg_terminate_backend(pid) as ended from pg_stat_activity
          where application_name like ${`${appName}_%`} and pid <> pg_backend_pid()
        `.execute(database.db)
        return rows.filter((row) => row.ended).length
      },
      async syncingWorkers(connectionIds) {
        if (connectionIds.length === 0) return []
        // The sync worker's lock key is hashtextextended('<schema>:sync:<id>', 0) (syncLockName); pg_locks shows an int8 advisory
        // key as classid (high 32 bits) and objid (low 32 bits).
        const { rows } = await sql<{ connection_id: string; application_name: string }>`
          with keys as (
            select id as connection_id, hashtextextended(${sql.lit(`${schema}:sync:`)} || id, 0) as k
            from unnest(${sql.val(connectionIds)}::text[]) as id
          )
          select keys.connection_id, a.application_name
          from pg_locks l
          join pg_stat_activity a on a.pid = l.pid
          join keys on l.classid::bigint = ((keys.k >> 32) & 4294967295) and l.objid::bigint = (keys.k & 4294967295)
          where l.locktype = 'advisory' and l.objsubid = 1 and l.granted and a.application_name like ${`${appName}_worker%`}
        `.execute(database.db)
        return rows.map((row) => ({
          slot: Number(row.application_name.slice(`${appName}_worker`.length)),
          connectionId: row.connection_id,
        }))
      },
      async requestSync(connectionId) {
        await runBankrec({ name: 'sync', args: ['sync', connectionId], env: env('cli'), logDir })
        const row = await database.db
          .selectFrom('sync_requests')
          .select('requested')
          .where('connection_id', '=', connectionId)
          .executeTakeFirstOrThrow()
        return BigInt(row.requested)
      },
      async queueCounts() {
        const counts: Record<string, Record<string, number>> = {}
        for (const [name, queue] of Object.entries(queues)) {
          counts[name] = await queue.getJobCounts(
            'wait',
            'active',
            'delayed',
            'prioritized',
            'failed',
            'completed',
          )
        }
        return counts
      },
      async owedRefreshes() {
        const delayed = await queues[CONNECTION_SYNC_QUEUE]!.getDelayed()
        return delayed.filter((job) => isRefreshJobId(job.id)).length
      },
      async describeJob(queue, jobId) {
        const job = await queues[queue]?.getJob(jobId)
        if (!job) return `no job ${jobId} in ${queue}`
        return `job ${jobId} in ${queue}: ${await job.getState()}, ${job.attemptsMade} attempts, delay ${job.delay}, processed ${job.processedOn}, last failure ${job.failedReason ?? 'none'}`
      },
      async failedJobs() {
        const failed = []
        for (const [name, queue] of Object.entries(queues)) {
          for (const job of await queue.getFailed(0, 20)) {
            failed.push({ queue: name, id: job.id, reason: job.failedReason, opts: job.opts })
          }
        }
        return failed
      },
      logTails(lines = 30) {
        return [...new Set(processes.map((p) => p.logFile))].map((file) => tail(file, lines)).join('\n')
      },
      close: cleanUp,
    }
    return cluster
  } catch (error) {
    await cleanUp()
    throw error
  }
}

async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 })
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000)
      if (keys.length > 0) await redis.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}

import { Queue, type IRedisTransaction } from 'bullmq'
import type { Redis } from 'ioredis'
import {
  DEDUPE_TTL_SECONDS,
  dedupeKey,
  DEFAULT_QUEUE_PREFIX,
  jobAddLanded,
  queueWebhookJobAdd,
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  type EnqueueResult,
  type WebhookEventQueue,
  type WebhookJob,
  type WebhookJobData,
} from './catalogue.js'
import { createInboxForwarder, type InboxForwarder, type InboxForwarderOptions } from './inbox-forwarder.js'
import { queueConnection, whenReady, withTimeout } from './redis-connection.js'
import { INGEST_SCRIPT, ingestArguments, inboxKeys } from './redis-inbox.js'
import { createArrivalRate } from './arrival-rate.js'

export type RedisWebhookEventQueueOptions = {
  /** @defaultValue redis://127.0.0.1:6379 */
  url?: string
  /** An ioredis connection to use instead of `url`; it stays open on close(). */
  connection?: Redis
  /** @defaultValue DEFAULT_QUEUE_PREFIX */
  prefix?: string
  /** @defaultValue DEDUPE_TTL_SECONDS (72 hours) */
  dedupeTtlSeconds?: number
  /** How long a connect, write or ping may take before it counts as failed. @defaultValue 5000 */
  timeoutMs?: number
  /**
   * While events arrive slower than this (per second), each write adds its BullMQ jobs itself; faster, it appends
   * them to the inbox for a forwarder to add (redis-inbox.ts). Given, the rate alone decides; by default (1000) a
   * write that finds an earlier one still in flight (a backlog) takes the inbox too.
   */
  directBelowEventsPerSecond?: number
  /**
   * Also run an inbox forwarder in this process. Leave it on unless other processes forward (bankrec's workers do;
   * `bankrec receiver` turns it off). @defaultValue true
   */
  forward?: boolean
  /** Connection errors; the queue keeps reconnecting. @defaultValue ignore them */
  onError?: (error: Error) => void
  /** With `forward`: called for each inbox entry the forwarder sets aside (see InboxForwarderOptions). */
  onDeadLetter?: InboxForwarderOptions['onDeadLetter']
}

type IngestingRedis = Redis & {
  bankrecIngestWebhookEvents(...args: (string | number)[]): Promise<number[]>
}

/**
 * The webhook event queue on Redis, in two ways chosen per write by the backlog and the arrival rate. Quiet: one MULTI that, per
 * event, sets its seen key (`SET NX EX`, which tells new from duplicate) and adds its BullMQ job; the event is in
 * the queue when the sender is answered. Busy (a storm of deliveries): one script call that sets the seen keys and
 * appends the new events to the inbox, a few µs per event where a BullMQ add costs ~40 µs of this process's CPU and
 * as much of Redis's; forwarders in the workers move the inbox into the queue. A write that finds another still in
 * flight is busy whatever the rate: a receiver short of CPU falls behind at any rate, and must not then take the
 * costlier way. Both ways share the seen keys, so a
 * redelivery is a duplicate whichever way its first delivery went.
 */
export function createRedisWebhookEventQueue(options: RedisWebhookEventQueueOptions = {}): WebhookEventQueue {
  const prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX
  const keys = inboxKeys(prefix)
  const ttlSeconds = options.dedupeTtlSeconds ?? DEDUPE_TTL_SECONDS
  const timeoutMs = options.timeoutMs ?? 5_000
  const directBelow = options.directBelowEventsPerSecond ?? 1_000
  const backlogDecides = options.directBelowEventsPerSecond === undefined
  const onError = options.onError ?? (() => undefined)
  const connection = queueConnection(options, onError) as IngestingRedis
  // ioredis sends it by digest (EVALSHA) and loads it again whenever Redis lost it.
  connection.defineCommand('bankrecIngestWebhookEvents', { lua: INGEST_SCRIPT })
  const queue = new Queue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: WEBHOOK_JOB_OPTIONS,
  })
  queue.on('error', onError)
  let forwarder: InboxForwarder | undefined
  if (options.forward ?? true) {
    forwarder = createInboxForwarder({
      ...(options.connection ? { connection: options.connection } : { url: options.url }),
      prefix,
      dedupeTtlSeconds: ttlSeconds,
      onError,
      ...(options.onDeadLetter ? { onDeadLetter: options.onDeadLetter } : {}),
    })
    forwarder.start()
  }
  const arrivals = createArrivalRate()
  let writesInFlight = 0

  const addDirectly = async (jobs: readonly WebhookJob[]): Promise<EnqueueResult[]> => {
    const multi = (await queue.backend.client).multi() as IRedisTransaction & {
      set(key: string, value: string, nx: 'NX', ex: 'EX', seconds: number): unknown
    }
    for (const job of jobs) {
      multi.set(dedupeKey(prefix, job.eventId), job.receivedAt, 'NX', 'EX', ttlSeconds)
      queueWebhookJobAdd(queue, multi, job, ttlSeconds)
    }
    const replies = await withTimeout(multi.exec(), timeoutMs, 'write')
    if (!replies) throw new Error('The queue write was aborted.')
    const failedKeys: string[] = []
    const results = jobs.map((job, index): EnqueueResult => {
      const [setError, set] = replies[2 * index] ?? [new Error('no reply')]
      if (setError || !jobAddLanded(replies[2 * index + 1])) {
        if (!setError && set === 'OK') failedKeys.push(dedupeKey(prefix, job.eventId))
        return 'failed'
      }
      return set === 'OK' ? 'queued' : 'duplicate'
    })
    // The job did not land, so its seen key must not turn the sender's retry into a 200.
    if (failedKeys.length > 0) await connection.del(...failedKeys)
    return results
  }

  const appendToInbox = async (jobs: readonly WebhookJob[]): Promise<EnqueueResult[]> => {
    const replies = await withTimeout(
      connection.bankrecIngestWebhookEvents(...ingestArguments(keys, prefix, ttlSeconds, jobs)),
      timeoutMs,
      'write',
    )
    return jobs.map((_, i) => (replies[i] === 1 ? 'queued' : 'duplicate'))
  }

  return {
    async addBatch(jobs) {
      if (jobs.length === 0) return []
      await whenReady(connection, timeoutMs)
      const backlogged = backlogDecides && writesInFlight > 0
      const quiet = arrivals.note(jobs.length, Date.now()) < directBelow && !backlogged
      writesInFlight++
      try {
        return await (quiet ? addDirectly(jobs) : appendToInbox(jobs))
      } finally {
        writesInFlight--
      }
    },
    backlog: () => connection.llen(keys.inbox),
    deadLetters: () => connection.llen(keys.dead),
    async ping() {
      await whenReady(connection, timeoutMs)
      await withTimeout(connection.ping(), timeoutMs, 'ping')
    },
    async close() {
      await forwarder?.close()
      await queue.close()
      if (!options.connection) connection.disconnect()
    },
  }
}

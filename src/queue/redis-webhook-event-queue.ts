import { randomUUID } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import { Queue, type IRedisTransaction } from 'bullmq'
import { Redis } from 'ioredis'
import {
  DEDUPE_TTL_SECONDS,
  dedupeKey,
  DEFAULT_QUEUE_PREFIX,
  jobAddLanded,
  queueWebhookJobAdd,
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  type EnqueueResult,
  type IgnoredReason,
  type WebhookEventQueue,
  type WebhookJob,
  type WebhookJobData,
} from './catalogue.js'

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
   * them to the inbox for a forwarder to add (see the inbox below). @defaultValue 1000
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
 * The webhook event queue on Redis, in two ways chosen per write by the arrival rate. Quiet: one MULTI that, per
 * event, sets its seen key (`SET NX EX`, which tells new from duplicate) and adds its BullMQ job; the event is in
 * the queue when the sender is answered. Busy (a storm of deliveries): one script call that sets the seen keys and
 * appends the new events to the inbox, a few µs per event where a BullMQ add costs ~40 µs of this process's CPU and
 * as much of Redis's; forwarders in the workers move the inbox into the queue. Both ways share the seen keys, so a
 * redelivery is a duplicate whichever way its first delivery went.
 */
export function createRedisWebhookEventQueue(options: RedisWebhookEventQueueOptions = {}): WebhookEventQueue {
  const prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX
  const keys = inboxKeys(prefix)
  const ttlSeconds = options.dedupeTtlSeconds ?? DEDUPE_TTL_SECONDS
  const timeoutMs = options.timeoutMs ?? 5_000
  const directBelow = options.directBelowEventsPerSecond ?? 1_000
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
      return arrivals.note(jobs.length, Date.now()) < directBelow ? addDirectly(jobs) : appendToInbox(jobs)
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

// ── the inbox: its keys, the ingest script, its entries ─────────────────────────────────────────────────────────

/**
 * Under a storm of deliveries the receiver does not add BullMQ jobs itself: a BullMQ add costs about 40 µs of the
 * receiver's CPU and as much of Redis's per event, more than a storm leaves. It appends each new event to an inbox
 * list in one small script per batch (seen key and entry together), and a forwarder in the workers moves the inbox
 * into the BullMQ queue. An entry in the inbox is as durable as a job in the queue: both are Redis writes.
 */
export type InboxKeys = {
  /** The list of queued entries, oldest first. */
  inbox: string
  /** Holds one token while the inbox has news; the forwarder blocks on it when idle. */
  wake: string
  /** The forwarding lease: one forwarder moves entries at a time. */
  lease: string
  /** Entries the forwarder could not decode, kept for a human instead of dropped. */
  dead: string
}

export function inboxKeys(prefix: string): InboxKeys {
  const base = `${prefix}:${WEBHOOK_EVENTS_QUEUE}`
  return {
    inbox: `${base}:inbox`,
    wake: `${base}:inbox-wake`,
    lease: `${base}:inbox-lease`,
    dead: `${base}:inbox-dead`,
  }
}

/**
 * KEYS: inbox, wake, then one seen key per event. ARGV: dedupe TTL in seconds, then per event its receivedAt
 * (the seen key's value) and its entry. Answers per event 1 (appended) or 0 (seen within the window).
 */
export const INGEST_SCRIPT = `
local entries = {}
local results = {}
for i = 3, #KEYS do
  local at = (i - 3) * 2 + 2
  if redis.call('SET', KEYS[i], ARGV[at], 'NX', 'EX', ARGV[1]) then
    entries[#entries + 1] = ARGV[at + 1]
    results[i - 2] = 1
  else
    results[i - 2] = 0
  end
end
if #entries > 0 then
  redis.call('RPUSH', KEYS[1], unpack(entries))
  if redis.call('LLEN', KEYS[2]) == 0 then redis.call('RPUSH', KEYS[2], '1') end
end
return results
`

/** The arguments of INGEST_SCRIPT for a batch: the key count first, as ioredis's dynamic-keys commands take it. */
export function ingestArguments(
  keys: InboxKeys,
  prefix: string,
  ttlSeconds: number,
  jobs: readonly WebhookJob[],
): (string | number)[] {
  const seen = jobs.map((job) => dedupeKey(prefix, job.eventId))
  const args: (string | number)[] = [2 + jobs.length, keys.inbox, keys.wake, ...seen, ttlSeconds]
  for (const job of jobs) args.push(job.receivedAt, encodeInboxEntry(job))
  return args
}

/** An inbox entry: the job as JSON, the event as its delivered text when the job has it (no second serialization). */
export function encodeInboxEntry(job: WebhookJob): string {
  const head =
    `{"eventId":${JSON.stringify(job.eventId)},"type":${JSON.stringify(job.type)},` +
    `"receivedAt":${JSON.stringify(job.receivedAt)},` +
    (job.ignored ? `"ignored":${JSON.stringify(job.ignored)},` : '') +
    (job.traceparent ? `"traceparent":${JSON.stringify(job.traceparent)},` : '')
  return `${head}"event":${job.eventJson ?? JSON.stringify(job.event)}}`
}

const IGNORED: readonly IgnoredReason[] = ['reserved_type', 'unknown_type']

/** The job an inbox entry holds; throws a TypeError naming what is wrong with an entry that is not one. */
export function decodeInboxEntry(entry: string): WebhookJob {
  let value: unknown
  try {
    value = JSON.parse(entry)
  } catch {
    throw new TypeError('The inbox entry is not JSON.')
  }
  const { eventId, type, receivedAt, ignored, event, traceparent } = (value ?? {}) as Record<string, unknown>
  for (const [name, field] of Object.entries({ eventId, type, receivedAt })) {
    if (typeof field !== 'string' || field === '')
      throw new TypeError(`The inbox entry has no ${name} string.`)
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw new TypeError('The inbox entry has no event object.')
  if (ignored !== undefined && !IGNORED.includes(ignored as IgnoredReason))
    throw new TypeError(`The inbox entry has an unknown ignored reason.`)
  return {
    eventId: eventId as string,
    type: type as string,
    receivedAt: receivedAt as string,
    event: event as Record<string, unknown>,
    ...(ignored ? { ignored: ignored as IgnoredReason } : {}),
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
  }
}

// ── when the inbox is used: the arrival rate ────────────────────────────────────────────────────────────────────

/** Events per second over the last whole second and the one under way, whichever is higher. */
export type ArrivalRate = {
  /** Counts `events` arrived at `nowMs` and returns the rate including them. */
  note(events: number, nowMs: number): number
}

export function createArrivalRate(): ArrivalRate {
  let windowStart = Number.NEGATIVE_INFINITY
  let inWindow = 0
  let lastRate = 0
  return {
    note(events, nowMs) {
      if (nowMs - windowStart >= 1_000) {
        // A gap of more than a window means nothing arrived in the last one.
        lastRate = nowMs - windowStart < 2_000 ? inWindow : 0
        windowStart = nowMs
        inWindow = 0
      }
      inWindow += events
      return Math.max(lastRate, inWindow)
    },
  }
}

// ── the forwarder: the inbox into the BullMQ queue ──────────────────────────────────────────────────────────────

export type InboxForwarderOptions = {
  /** @defaultValue redis://127.0.0.1:6379 */
  url?: string
  /** An ioredis connection to use instead of `url`; it stays open on close(). */
  connection?: Redis
  /** @defaultValue DEFAULT_QUEUE_PREFIX */
  prefix?: string
  /** @defaultValue DEDUPE_TTL_SECONDS (72 hours) */
  dedupeTtlSeconds?: number
  /** Entries moved per queue write. @defaultValue 256 */
  batchSize?: number
  /** How long a forwarder that stopped renewing its lease (crashed) blocks the others. @defaultValue 5000 */
  leaseMs?: number
  /** How long forwardPending() waits for Redis to be reachable. @defaultValue 5000 */
  timeoutMs?: number
  /** Errors of a forwarding round and undecodable entries; the forwarder carries on. @defaultValue ignore */
  onError?: (error: Error) => void
  /**
   * Called once per entry set aside in the dead-letter list, after it is there: an event answered 2xx that will
   * not be processed, which operations must hear about (bankrec alerts on it).
   */
  onDeadLetter?: (dead: DeadLetter) => void
}

/** An inbox entry set aside instead of queued, with what could be read of it. */
export type DeadLetter = {
  entry: string
  eventId: string | null
  type: string | null
  reason: string
  /** The Redis list it is kept in. */
  list: string
}

export type InboxForwarder = {
  /** Moves every entry now in the inbox into the queue; resolves with how many it moved. */
  forwardPending(): Promise<number>
  /** How many entries wait in the inbox. */
  backlog(): Promise<number>
  /** How many entries were set aside in the dead-letter list (kept for a person, never processed). */
  deadLetters(): Promise<number>
  /** Forwards in the background, as the lease holder, until close(). */
  start(): void
  close(): Promise<void>
}

/** The event id and type of an entry that is not a job, as far as they can be read; for the alert. */
function idsOf(entry: string): { eventId: string | null; type: string | null } {
  try {
    const { eventId, type } = JSON.parse(entry) as Record<string, unknown>
    return {
      eventId: typeof eventId === 'string' ? eventId : null,
      type: typeof type === 'string' ? type : null,
    }
  } catch {
    return { eventId: null, type: null }
  }
}

/** Takes the lease, or renews it when this forwarder holds it. */
const TAKE_LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] or not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`
const RELEASE_LEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

/**
 * Moves the receiver's inbox (see the inbox below) into the BullMQ webhook-events queue, oldest first. An entry
 * leaves the inbox only after its job add succeeded; a crash in between adds it again, which the job id and
 * BullMQ's deduplication id turn into a no-op. Any number of forwarders may run (one per worker process): the one
 * holding the lease forwards, the others stand by and take over within `leaseMs` if it dies.
 */
export function createInboxForwarder(options: InboxForwarderOptions = {}): InboxForwarder {
  const prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX
  const keys = inboxKeys(prefix)
  const ttlSeconds = options.dedupeTtlSeconds ?? DEDUPE_TTL_SECONDS
  const batchSize = options.batchSize ?? 256
  const leaseMs = options.leaseMs ?? 5_000
  const onError = options.onError ?? (() => undefined)
  const timeoutMs = options.timeoutMs ?? 5_000
  const connection = queueConnection(options, onError)
  const queue = new Queue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: WEBHOOK_JOB_OPTIONS,
  })
  queue.on('error', onError)
  const token = randomUUID()
  const stopping = new AbortController()
  let blocking: Redis | undefined
  let running: Promise<void> | undefined

  /** Adds these inbox entries as jobs, then removes from the inbox those that landed (and sets aside bad ones). */
  const forwardEntries = async (entries: readonly string[]): Promise<void> => {
    const multi = (await queue.backend.client).multi() as IRedisTransaction
    const added: string[] = []
    const dead: DeadLetter[] = []
    for (const entry of entries) {
      try {
        queueWebhookJobAdd(queue, multi, decodeInboxEntry(entry), ttlSeconds)
        added.push(entry)
      } catch (error) {
        onError(error as Error)
        dead.push({ entry, ...idsOf(entry), reason: (error as Error).message, list: keys.dead })
      }
    }
    const replies = added.length > 0 ? await multi.exec() : []
    if (!replies) throw new Error('The queue write was aborted.')
    const done = added.filter((_, i) => jobAddLanded(replies[i]))
    const cleanup = connection.pipeline()
    for (const { entry } of dead) cleanup.rpush(keys.dead, entry)
    for (const entry of [...done, ...dead.map((d) => d.entry)]) cleanup.lrem(keys.inbox, 1, entry)
    await cleanup.exec()
    for (const letter of dead) options.onDeadLetter?.(letter)
    if (done.length < added.length)
      throw new Error(`${added.length - done.length} of ${added.length} inbox entries could not be queued.`)
  }

  const forwardBatch = async (): Promise<number> => {
    const entries = await connection.lrange(keys.inbox, 0, batchSize - 1)
    if (entries.length > 0) await forwardEntries(entries)
    return entries.length
  }

  const holdLease = async (): Promise<boolean> =>
    (await connection.eval(TAKE_LEASE, 1, keys.lease, token, leaseMs)) === 1

  const loop = async (): Promise<void> => {
    let leaseTakenAt = Number.NEGATIVE_INFINITY
    blocking = connection.duplicate()
    blocking.on('error', onError)
    while (!stopping.signal.aborted) {
      try {
        if (connection.status !== 'ready' || blocking.status !== 'ready') {
          await delay(200, undefined, { signal: stopping.signal })
          continue
        }
        // Renewed between batches once a third of it has passed; a batch takes far less than the lease.
        if (Date.now() - leaseTakenAt > leaseMs / 3) {
          if (!(await holdLease())) {
            leaseTakenAt = Number.NEGATIVE_INFINITY
            await delay(leaseMs / 2, undefined, { signal: stopping.signal })
            continue
          }
          leaseTakenAt = Date.now()
        }
        // A short batch emptied the inbox as it was; whatever came after it left a wake token, so wait for that.
        if ((await forwardBatch()) < batchSize) await blocking.blpop(keys.wake, Math.max(1, leaseMs / 2000))
      } catch (error) {
        if (stopping.signal.aborted) break
        onError(error as Error)
        await delay(1_000, undefined, { signal: stopping.signal }).catch(() => undefined)
      }
    }
  }

  return {
    async forwardPending() {
      await whenReady(connection, timeoutMs)
      let moved = 0
      for (let n = await forwardBatch(); n > 0; n = await forwardBatch()) moved += n
      return moved
    },
    backlog: () => connection.llen(keys.inbox),
    deadLetters: () => connection.llen(keys.dead),
    start() {
      running ??= loop().catch(() => undefined)
    },
    async close() {
      stopping.abort()
      blocking?.disconnect()
      await running
      // With Redis away the command would wait for it; the lease then simply expires.
      if (connection.status === 'ready')
        await connection.eval(RELEASE_LEASE, 1, keys.lease, token).catch(() => undefined)
      await queue.close()
      if (!options.connection) connection.disconnect()
    },
  }
}

// ── the connection: ready, or failing fast ──────────────────────────────────────────────────────────────────────

/** Thrown when Redis does not answer in time; callers map it to 503 (the sender retries). */
class QueueTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`The queue did not answer the ${what} within ${ms} ms.`)
    this.name = 'QueueTimeoutError'
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueueTimeoutError(what, ms)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Resolves once the connection is ready; a connection still (re)connecting gets `ms` to get there. */
function whenReady(connection: Redis, ms: number): Promise<void> {
  if (connection.status === 'ready') return Promise.resolve()
  let onReady = () => undefined as void
  const ready = new Promise<void>((resolve) => {
    onReady = resolve
    connection.once('ready', onReady)
  })
  return withTimeout(ready, ms, 'connection').finally(() => connection.off('ready', onReady))
}

/**
 * The connection given (left to its owner), or a new one to `url` with no offline queue: while Redis is away a
 * command fails at once (a 503, a forwarding round that ends) instead of waiting for it.
 */
function queueConnection(
  options: { connection?: Redis; url?: string },
  onError: (error: Error) => void,
): Redis {
  if (options.connection) return options.connection
  const connection = new Redis(options.url ?? 'redis://127.0.0.1:6379', {
    maxRetriesPerRequest: null,
    enableOfflineQueue: false,
  })
  connection.on('error', onError)
  return connection
}

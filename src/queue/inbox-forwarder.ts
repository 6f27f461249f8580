import { randomUUID } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import { Queue, type IRedisTransaction } from 'bullmq'
import type { Redis } from 'ioredis'
import {
  DEDUPE_TTL_SECONDS,
  DEFAULT_QUEUE_PREFIX,
  jobAddLanded,
  queueWebhookJobAdd,
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  type WebhookJobData,
} from './catalogue.js'
import { queueConnection, whenReady } from './redis-connection.js'
import { decodeInboxEntry, inboxKeys } from './redis-inbox.js'

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
 * Moves the receiver's inbox (redis-inbox.ts) into the BullMQ webhook-events queue, oldest first. An entry
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

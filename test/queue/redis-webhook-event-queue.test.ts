import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import {
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  createInboxForwarder,
  createRedisWebhookEventQueue,
  inboxKeys,
  jobIdFor,
  type DeadLetter,
  type WebhookJob,
  type WebhookJobData,
} from '../../src/queue/index.js'
import { createBatchingEnqueue } from '../../src/receiver/index.js'
import { REDIS_URL, closedPort, deleteKeys, testEvent, uniquePrefix } from '../receiver/deliveries.js'

const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null })
const prefixes: string[] = []

afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(redis, `${prefix}:*`)
  redis.disconnect()
})

/** A queue that takes every write as a storm (into the inbox) unless told a rate under which it adds jobs itself. */
function setup(directBelowEventsPerSecond = 0) {
  const prefix = uniquePrefix('inbox')
  prefixes.push(prefix)
  const queue = createRedisWebhookEventQueue({
    url: REDIS_URL,
    prefix,
    forward: false,
    directBelowEventsPerSecond,
  })
  const view = new Queue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, { connection: redis, prefix })
  return { prefix, queue, view, keys: inboxKeys(prefix) }
}

function job(overrides: Partial<WebhookJob> = {}): WebhookJob {
  const event = testEvent()
  return {
    eventId: event.id as string,
    type: 'test',
    event,
    receivedAt: new Date().toISOString(),
    ...overrides,
  }
}

describe('the Redis webhook event queue while deliveries are few', () => {
  it('adds each event as its BullMQ job before answering, and knows a redelivery', async () => {
    const { queue, view, keys } = setup(1_000)
    const one = job()
    expect(await queue.addBatch([one, job()])).toEqual(['queued', 'queued'])
    expect(await queue.addBatch([one])).toEqual(['duplicate'])
    expect(await redis.llen(keys.inbox)).toBe(0)
    expect((await view.getJob(jobIdFor(one.eventId)))?.data).toEqual({
      eventId: one.eventId,
      event: one.event,
      receivedAt: one.receivedAt,
    })
    expect(await view.getJobCountByTypes('waiting')).toBe(2)
    // A failed attempt (a database restart under the worker) is retried, not failed for good.
    const added = await view.getJob(jobIdFor(one.eventId))
    expect(added?.opts).toMatchObject({
      attempts: WEBHOOK_JOB_OPTIONS.attempts,
      backoff: WEBHOOK_JOB_OPTIONS.backoff,
    })
    await queue.close()
  })

  it('turns to the inbox once events arrive faster than the threshold, and a redelivery stays a duplicate', async () => {
    const { queue, view, keys } = setup(5)
    const quiet = job()
    expect(await queue.addBatch([quiet])).toEqual(['queued'])
    expect(await view.getJob(jobIdFor(quiet.eventId))).toBeDefined()
    const storm = Array.from({ length: 6 }, () => job())
    expect(await queue.addBatch(storm)).toEqual(storm.map(() => 'queued'))
    expect(await redis.llen(keys.inbox)).toBe(6)
    // Seen by the direct write, redelivered during the storm: still a duplicate, and not appended.
    expect(await queue.addBatch([quiet])).toEqual(['duplicate'])
    expect(await redis.llen(keys.inbox)).toBe(6)
    await queue.close()
  })
})

describe('the webhook inbox on Redis', () => {
  it('takes each event id once and forwards it as one BullMQ job with the event as delivered', async () => {
    const { prefix, queue, view, keys } = setup()
    const first = job()
    const ignored = job({ type: 'account.created', ignored: 'reserved_type' })
    expect(await queue.addBatch([first, ignored, first])).toEqual(['queued', 'queued', 'duplicate'])
    expect(await queue.addBatch([first])).toEqual(['duplicate'])
    expect(await queue.backlog!()).toBe(2)

    const forwarder = createInboxForwarder({ url: REDIS_URL, prefix })
    expect(await forwarder.forwardPending()).toBe(2)
    await forwarder.close()
    expect(await redis.llen(keys.inbox)).toBe(0)
    const forwarded = await view.getJob(jobIdFor(first.eventId))
    expect(forwarded?.name).toBe('test')
    expect(forwarded?.data).toEqual({
      eventId: first.eventId,
      event: first.event,
      receivedAt: first.receivedAt,
    })
    expect(forwarded?.opts.attempts).toBe(WEBHOOK_JOB_OPTIONS.attempts)
    expect((await view.getJob(jobIdFor(ignored.eventId)))?.data.ignored).toBe('reserved_type')
    await queue.close()
  })

  it('adds no second job when an entry is forwarded again (a forwarder that died before removing it)', async () => {
    const { prefix, queue, view, keys } = setup()
    const one = job()
    await queue.addBatch([one])
    const [entry] = await redis.lrange(keys.inbox, 0, 0)
    const forwarder = createInboxForwarder({ url: REDIS_URL, prefix })
    await forwarder.forwardPending()
    await redis.rpush(keys.inbox, entry!)
    expect(await forwarder.forwardPending()).toBe(1)
    await forwarder.close()
    expect(await view.getJobCountByTypes('waiting')).toBe(1)
    expect(await redis.llen(keys.inbox)).toBe(0)
    await queue.close()
  })

  it('sets an undecodable entry aside on the dead list and forwards the rest', async () => {
    const { prefix, queue, view, keys } = setup()
    await redis.rpush(keys.inbox, '{"not":"a job"}')
    const good = job()
    await queue.addBatch([good])
    const errors: Error[] = []
    const dead: DeadLetter[] = []
    const forwarder = createInboxForwarder({
      url: REDIS_URL,
      prefix,
      onError: (e) => errors.push(e),
      onDeadLetter: (letter) => dead.push(letter),
    })
    await forwarder.forwardPending()
    expect(await forwarder.deadLetters()).toBe(1)
    await forwarder.close()
    expect(await redis.lrange(keys.dead, 0, -1)).toEqual(['{"not":"a job"}'])
    expect(errors.map((e) => e.message)).toEqual(['The inbox entry has no eventId string.'])
    expect(dead).toEqual([
      {
        entry: '{"not":"a job"}',
        eventId: null,
        type: null,
        reason: 'The inbox entry has no eventId string.',
        list: keys.dead,
      },
    ])
    expect(await queue.deadLetters?.()).toBe(1)
    expect(await view.getJob(jobIdFor(good.eventId))).toBeDefined()
    expect(await redis.llen(keys.inbox)).toBe(0)
    await queue.close()
  })

  it('forwards in the background what arrives later, each event once with two forwarders running', async () => {
    const { prefix, queue, view, keys } = setup()
    const forwarders = [0, 1].map(() => createInboxForwarder({ url: REDIS_URL, prefix, leaseMs: 2_000 }))
    forwarders.forEach((f) => f.start())
    const jobs = Array.from({ length: 300 }, () => job())
    for (let i = 0; i < jobs.length; i += 50) await queue.addBatch(jobs.slice(i, i + 50))
    await vi.waitFor(async () => expect(await redis.llen(keys.inbox)).toBe(0), { timeout: 10_000 })
    await Promise.all(forwarders.map((f) => f.close()))
    const waiting = await view.getJobs(['waiting'], 0, -1)
    expect(waiting.map((j) => j.id).sort()).toEqual(jobs.map((j) => jobIdFor(j.eventId)).sort())
    expect(await redis.exists(keys.lease)).toBe(0)
    await queue.close()
  })

  it('stops promptly while Redis is unreachable, and forwardPending says Redis did not answer', async () => {
    const port = await closedPort()
    const forwarder = createInboxForwarder({ url: `redis://127.0.0.1:${port}`, timeoutMs: 200 })
    forwarder.start()
    await expect(forwarder.forwardPending()).rejects.toThrow('did not answer the connection within 200 ms')
    await forwarder.close()
  })
})

/** An event nested 5,000 deep: BullMQ's job add overflows the stack on it (the receiver refuses it at the door). */
function poison(): WebhookJob {
  let deep: unknown = {}
  for (let i = 0; i < 5_000; i++) deep = { a: deep }
  const text = `{"id":"evt_poison_${Date.now()}","deep":${'{"a":'.repeat(5_000)}{}${'}'.repeat(5_000)}}`
  return job({
    eventId: `evt_poison_${Math.random()}`,
    event: { deep } as Record<string, unknown>,
    eventJson: text,
  })
}

describe('one event the queue cannot take (finding 2)', () => {
  it('fails alone when coalesced with others into one write', async () => {
    const { queue, view } = setup(Number.MAX_SAFE_INTEGER)
    const enqueue = createBatchingEnqueue(queue, { windowMs: 5 })
    const [a, b] = [job(), job()]
    const results = await Promise.allSettled([enqueue(a), enqueue(poison()), enqueue(b)])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(await view.getJob(jobIdFor(a.eventId))).toBeDefined()
    expect(await view.getJob(jobIdFor(b.eventId))).toBeDefined()
    await queue.close()
  })

  it('accepted into the inbox, is set aside as a dead letter, reported and counted; the rest is forwarded', async () => {
    const { prefix, queue, view, keys } = setup()
    const bad = poison()
    const good = job()
    expect(await queue.addBatch([bad, good])).toEqual(['queued', 'queued'])
    const dead: DeadLetter[] = []
    const forwarder = createInboxForwarder({ url: REDIS_URL, prefix, onDeadLetter: (d) => dead.push(d) })
    await forwarder.forwardPending()
    await forwarder.close()
    expect(dead.map((d) => [d.eventId, d.type, d.list])).toEqual([[bad.eventId, 'test', keys.dead]])
    expect(await queue.deadLetters?.()).toBe(1)
    expect(await view.getJob(jobIdFor(good.eventId))).toBeDefined()
    await queue.close()
  })
})

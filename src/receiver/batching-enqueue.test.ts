import { describe, expect, it, vi } from 'vitest'
import type { EnqueueResult, WebhookJob } from '../queue/index.js'
import { UnqueueableJobError, createBatchingEnqueue } from './batching-enqueue.js'

const job = (eventId: string): WebhookJob => ({ eventId, type: 'test', event: {}, receivedAt: '' })

/** A queue that records its writes and answers queued for each new id, duplicate for one seen before. */
function recordingQueue() {
  const writes: string[][] = []
  const seen = new Set<string>()
  return {
    writes,
    async addBatch(jobs: readonly WebhookJob[]): Promise<EnqueueResult[]> {
      writes.push(jobs.map((j) => j.eventId))
      return jobs.map((j) => (seen.has(j.eventId) ? 'duplicate' : (seen.add(j.eventId), 'queued')))
    },
  }
}

describe('createBatchingEnqueue', () => {
  it('writes concurrent enqueues as one batch and answers each with its own result', async () => {
    const queue = recordingQueue()
    const enqueue = createBatchingEnqueue(queue, { windowMs: 5 })
    const results = await Promise.all([enqueue(job('a')), enqueue(job('b')), enqueue(job('a'))])
    expect(queue.writes).toEqual([['a', 'b', 'a']])
    expect(results).toEqual(['queued', 'queued', 'duplicate'])
  })

  it('gathers the jobs that arrive while writes are in flight into the next batch', async () => {
    const writes: string[][] = []
    const release: (() => void)[] = []
    const queue = {
      addBatch(jobs: readonly WebhookJob[]): Promise<EnqueueResult[]> {
        writes.push(jobs.map((j) => j.eventId))
        return new Promise((resolve) => release.push(() => resolve(jobs.map(() => 'queued'))))
      },
    }
    const enqueue = createBatchingEnqueue(queue, { maxInFlight: 1 })
    const first = enqueue(job('a'))
    await new Promise((resolve) => setImmediate(resolve))
    const later = [enqueue(job('b')), enqueue(job('c'))]
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toEqual([['a']])
    release.shift()!()
    expect(await first).toBe('queued')
    await vi.waitFor(() => expect(writes).toEqual([['a'], ['b', 'c']]))
    release.shift()!()
    expect(await Promise.all(later)).toEqual(['queued', 'queued'])
  })

  it('writes a full batch without waiting for the window', async () => {
    const queue = recordingQueue()
    const enqueue = createBatchingEnqueue(queue, { windowMs: 60_000, maxBatch: 2 })
    await Promise.all([enqueue(job('a')), enqueue(job('b'))])
    expect(queue.writes).toEqual([['a', 'b']])
  })

  it('rejects every caller with the queue’s error when the queue takes none of them', async () => {
    const down = new Error('down')
    const enqueue = createBatchingEnqueue({ addBatch: () => Promise.reject(down) }, { windowMs: 0 })
    const results = await Promise.allSettled([enqueue(job('a')), enqueue(job('b'))])
    expect(results).toEqual([
      { status: 'rejected', reason: down },
      { status: 'rejected', reason: down },
    ])
  })

  it('writes a failed batch again job by job, so only the job the queue refuses fails', async () => {
    const writes: string[][] = []
    const causes: unknown[] = []
    const queue = {
      async addBatch(jobs: readonly WebhookJob[]): Promise<EnqueueResult[]> {
        writes.push(jobs.map((j) => j.eventId))
        if (jobs.some((j) => j.eventId === 'poison')) throw new Error('cannot serialise')
        return jobs.map(() => 'queued')
      },
    }
    const enqueue = createBatchingEnqueue(queue, {
      windowMs: 5,
      onBatchError: (error) => causes.push(error),
    })
    const results = await Promise.allSettled([enqueue(job('a')), enqueue(job('poison')), enqueue(job('b'))])
    expect(results[0]).toEqual({ status: 'fulfilled', value: 'queued' })
    expect(results[2]).toEqual({ status: 'fulfilled', value: 'queued' })
    expect(results[1]?.status).toBe('rejected')
    const refused = (results[1] as PromiseRejectedResult).reason as UnqueueableJobError
    expect(refused).toBeInstanceOf(UnqueueableJobError)
    expect([refused.eventId, (refused.cause as Error).message]).toEqual(['poison', 'cannot serialise'])
    expect(writes).toEqual([['a', 'poison', 'b'], ['a'], ['poison'], ['b']])
    expect(causes).toHaveLength(1)
  })

  it('answers failed for a job the queue gave no result for', async () => {
    const enqueue = createBatchingEnqueue({ addBatch: async () => [] }, { windowMs: 0 })
    expect(await enqueue(job('a'))).toBe('failed')
  })

  it('flush writes the pending batch at once', async () => {
    const queue = recordingQueue()
    const enqueue = createBatchingEnqueue(queue, { windowMs: 60_000 })
    const pending = enqueue(job('a'))
    await enqueue.flush()
    expect(await pending).toBe('queued')
  })
})

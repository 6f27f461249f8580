import type { EnqueueResult, WebhookEventQueue, WebhookJob } from '../queue/index.js'

/** Writes one job and resolves once it is durably queued (or known as a duplicate). */
export type Enqueue = (job: WebhookJob) => Promise<EnqueueResult>

export type BatchingEnqueueOptions = {
  /**
   * How long the first job of a batch waits for others before the write starts; 0 waits one event-loop turn.
   * @defaultValue 0
   */
  windowMs?: number
  /** Batches written at the same time; later jobs gather into the next batch meanwhile. @defaultValue 4 */
  maxInFlight?: number
  /** The most jobs in one write. @defaultValue 512 */
  maxBatch?: number
  /** Called with each batch's size, before it is written (metrics). */
  onBatch?: (size: number) => void
  /** Called with the cause when a batch write fails, before its jobs are retried one by one. */
  onBatchError?: (error: unknown, size: number) => void
}

/**
 * A job the queue refused on its own, while the other jobs of its batch were written: the job itself is at fault
 * (it would fail the same way again), not the queue.
 */
export class UnqueueableJobError extends Error {
  readonly code = 'unqueueable_event'
  constructor(
    readonly eventId: string,
    options: { cause: unknown },
  ) {
    super(`The queue refused event ${eventId} while it took the rest of its batch.`, options)
    this.name = 'UnqueueableJobError'
  }
}

export type BatchingEnqueue = Enqueue & {
  /** Writes every pending job and resolves when every batch has been answered. */
  flush(): Promise<void>
}

type Pending = { job: WebhookJob; resolve: (result: EnqueueResult) => void; reject: (error: unknown) => void }

/**
 * Coalesces concurrent enqueues into one queue write (group commit): a job waits at most one window, or for a
 * write in flight to finish; everything that arrived meanwhile goes out as one batch. Under a storm of deliveries
 * the queue sees a few large writes instead of one per request, and each caller is answered when its batch is.
 * A batch that fails is written again job by job, so a bad job fails alone (UnqueueableJobError).
 */
export function createBatchingEnqueue(
  queue: Pick<WebhookEventQueue, 'addBatch'>,
  options: BatchingEnqueueOptions = {},
): BatchingEnqueue {
  const windowMs = options.windowMs ?? 0
  const maxInFlight = options.maxInFlight ?? 4
  const maxBatch = options.maxBatch ?? 512
  let pending: Pending[] = []
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined
  const inFlight = new Set<Promise<void>>()

  const schedule = (): void => {
    if (timer !== undefined || pending.length === 0 || inFlight.size >= maxInFlight) return
    timer = windowMs > 0 ? setTimeout(write, windowMs) : setImmediate(write)
  }

  const write = (): void => {
    if (timer !== undefined) {
      if (windowMs > 0) clearTimeout(timer as NodeJS.Timeout)
      else clearImmediate(timer as NodeJS.Immediate)
      timer = undefined
    }
    if (pending.length === 0 || inFlight.size >= maxInFlight) return
    const batch = pending.length > maxBatch ? pending.splice(0, maxBatch) : pending
    if (batch === pending) pending = []
    options.onBatch?.(batch.length)
    const done: Promise<void> = Promise.resolve()
      .then(() => queue.addBatch(batch.map((p) => p.job)))
      .then(
        (results) => batch.forEach((p, i) => p.resolve(results[i] ?? 'failed')),
        (error: unknown) => (batch.length === 1 ? batch[0]?.reject(error) : retryOneByOne(batch, error)),
      )
      .finally(() => {
        inFlight.delete(done)
        schedule()
      })
    inFlight.add(done)
    schedule()
  }

  // One job the queue cannot take (issue 17, finding 2) must not fail the deliveries coalesced with it: each is
  // written alone, so only the bad one fails. When every one fails the queue itself is down: the first error stands.
  const retryOneByOne = async (batch: Pending[], error: unknown): Promise<void> => {
    options.onBatchError?.(error, batch.length)
    const outcomes = await Promise.allSettled(batch.map((p) => queue.addBatch([p.job])))
    const anyWritten = outcomes.some((o) => o.status === 'fulfilled')
    outcomes.forEach((outcome, i) => {
      const p = batch[i] as Pending
      if (outcome.status === 'fulfilled') p.resolve(outcome.value[0] ?? 'failed')
      else if (anyWritten) p.reject(new UnqueueableJobError(p.job.eventId, { cause: outcome.reason }))
      else p.reject(outcome.reason)
    })
  }

  const enqueue = (job: WebhookJob): Promise<EnqueueResult> =>
    new Promise<EnqueueResult>((resolve, reject) => {
      pending.push({ job, resolve, reject })
      if (pending.length >= maxBatch && inFlight.size < maxInFlight) write()
      else schedule()
    })

  return Object.assign(enqueue, {
    async flush() {
      while (pending.length > 0 || inFlight.size > 0) {
        if (pending.length > 0 && inFlight.size < maxInFlight) write()
        await Promise.race(inFlight)
      }
    },
  })
}

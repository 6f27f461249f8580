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
        (error: unknown) => batch.forEach((p) => p.reject(error)),
      )
      .finally(() => {
        inFlight.delete(done)
        schedule()
      })
    inFlight.add(done)
    schedule()
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

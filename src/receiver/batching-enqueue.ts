import type { EnqueueResult, WebhookEventQueue, WebhookJob } from '../queue/index.js'

/** Writes one job and resolves once it is durably queued (or known as a duplicate). */
export type Enqueue = (job: WebhookJob) => Promise<EnqueueResult>

export type BatchingEnqueueOptions = {
  /** How long the first job of a batch waits for others; 0 waits one event-loop turn. @defaultValue 1 */
  windowMs?: number
  /** A batch this large is written at once. @defaultValue 256 */
  maxBatch?: number
  /** Called with each batch's size, before it is written (metrics). */
  onBatch?: (size: number) => void
}

export type BatchingEnqueue = Enqueue & {
  /** Writes the pending batch now and resolves when every batch in flight has been answered. */
  flush(): Promise<void>
}

type Pending = { job: WebhookJob; resolve: (result: EnqueueResult) => void; reject: (error: unknown) => void }

/**
 * Coalesces concurrent enqueues into one queue write per window: under a storm of deliveries the queue sees one
 * MULTI per few milliseconds instead of one per request, and each caller is answered when its batch is.
 */
export function createBatchingEnqueue(
  queue: Pick<WebhookEventQueue, 'addBatch'>,
  options: BatchingEnqueueOptions = {},
): BatchingEnqueue {
  const windowMs = options.windowMs ?? 1
  const maxBatch = options.maxBatch ?? 256
  let pending: Pending[] = []
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined
  const inFlight = new Set<Promise<void>>()

  const write = (): void => {
    if (timer !== undefined) {
      if (windowMs > 0) clearTimeout(timer as NodeJS.Timeout)
      else clearImmediate(timer as NodeJS.Immediate)
      timer = undefined
    }
    const batch = pending
    pending = []
    if (batch.length === 0) return
    options.onBatch?.(batch.length)
    const done = Promise.resolve()
      .then(() => queue.addBatch(batch.map((p) => p.job)))
      .then(
        (results) => batch.forEach((p, i) => p.resolve(results[i] ?? 'failed')),
        (error: unknown) => batch.forEach((p) => p.reject(error)),
      )
      .finally(() => inFlight.delete(done))
    inFlight.add(done)
  }

  const enqueue = (job: WebhookJob): Promise<EnqueueResult> =>
    new Promise<EnqueueResult>((resolve, reject) => {
      pending.push({ job, resolve, reject })
      if (pending.length >= maxBatch) write()
      else if (timer === undefined) timer = windowMs > 0 ? setTimeout(write, windowMs) : setImmediate(write)
    })

  return Object.assign(enqueue, {
    async flush() {
      write()
      await Promise.all(inFlight)
    },
  })
}

import { Counter, Histogram, Registry } from 'prom-client'

/**
 * What became of a delivery; the metrics count answers by outcome and reason. Here rather than with the answer
 * (delivery-answer.ts), which imports this type.
 */
export type DeliveryOutcome = 'queued' | 'ignored' | 'duplicate' | 'rejected' | 'unavailable' | 'error'

export type ReceiverMetrics = {
  registry: Registry
  /** Counts one answered delivery. */
  record(outcome: DeliveryOutcome, reason: string): void
  /** Observes the size of one queue write. */
  batch(size: number): void
}

/** The receiver's Prometheus metrics: deliveries by outcome and reason, and queue write sizes. */
export function createReceiverMetrics(registry: Registry = new Registry()): ReceiverMetrics {
  const deliveries = new Counter({
    name: 'bankrec_receiver_deliveries_total',
    help: 'Webhook deliveries answered, by outcome (queued, ignored, duplicate, rejected, unavailable, error) and reason',
    labelNames: ['outcome', 'reason'] as const,
    registers: [registry],
  })
  const batchSize = new Histogram({
    name: 'bankrec_receiver_batch_size',
    help: 'Events per coalesced queue write',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  })
  // Label lookups hash their labels on every call; the few (outcome, reason) pairs are cached instead.
  const children = new Map<string, { inc(): void }>()
  return {
    registry,
    record(outcome, reason) {
      const key = `${outcome}\u0000${reason}`
      let child = children.get(key)
      if (!child) {
        child = deliveries.labels(outcome, reason)
        children.set(key, child)
      }
      child.inc()
    },
    batch: (size) => batchSize.observe(size),
  }
}

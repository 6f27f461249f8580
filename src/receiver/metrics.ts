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

/** One (outcome, reason) series: answers counted since the last scrape, added to the counter when it is read. */
type Tally = { child: { inc(value: number): void }; unreported: number }

/** The receiver's Prometheus metrics: deliveries by outcome and reason, and queue write sizes. */
export function createReceiverMetrics(registry: Registry = new Registry()): ReceiverMetrics {
  // A labelled inc hashes its labels on every call; each delivery adds one to a plain tally instead, and the
  // tallies reach the counter whenever it is read (a scrape, the dashboard's overview), so every read is exact.
  const tallies: Tally[] = []
  const byOutcome = new Map<string, Map<string, Tally>>()
  const deliveries = new Counter({
    name: 'bankrec_receiver_deliveries_total',
    help: 'Webhook deliveries answered, by outcome (queued, ignored, duplicate, rejected, unavailable, error) and reason',
    labelNames: ['outcome', 'reason'] as const,
    registers: [registry],
    collect() {
      for (const tally of tallies) {
        if (tally.unreported === 0) continue
        tally.child.inc(tally.unreported)
        tally.unreported = 0
      }
    },
  })
  const batchSize = new Histogram({
    name: 'bankrec_receiver_batch_size',
    help: 'Events per coalesced queue write',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  })
  return {
    registry,
    record(outcome, reason) {
      let byReason = byOutcome.get(outcome)
      if (!byReason) byOutcome.set(outcome, (byReason = new Map()))
      let tally = byReason.get(reason)
      if (!tally) {
        tally = { child: deliveries.labels(outcome, reason), unreported: 0 }
        byReason.set(reason, tally)
        tallies.push(tally)
      }
      tally.unreported++
    },
    batch: (size) => batchSize.observe(size),
  }
}

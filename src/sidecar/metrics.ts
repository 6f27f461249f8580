import type { Queue } from 'bullmq'
import type { Kysely } from 'kysely'
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import { createReceiverMetrics, type ReceiverMetrics } from '../receiver/index.js'
import { countUninterpretableEvents, type Database } from '../store/index.js'
import { queueStats } from './queue-stats.js'
import { syncLags } from './sync-lag.js'
import { createTrafficMetrics, type TrafficMetrics } from './traffic-metrics.js'

/** Open connection incidents by kind; the alerting work feeds it. */
export const OPEN_INCIDENTS_GAUGE = 'bankrec_open_incidents'
/** Share of incoming payments matched to invoices (0–1); the matching work feeds it. */
export const MATCH_RATE_GAUGE = 'bankrec_match_rate'

export type GaugeSample = { value: number; labels?: Record<string, string> }
/** Read on every scrape: one value for a gauge without labels, or one sample per label set. */
export type GaugeCollector = () => number | readonly GaugeSample[] | Promise<number | readonly GaugeSample[]>

export type GaugeSpec = {
  name: string
  help: string
  labelNames?: readonly string[]
  collect?: GaugeCollector
}

export type SidecarMetrics = {
  registry: Registry
  /** Webhook deliveries by outcome and reason; the receiver middleware records into it. */
  receiver: ReceiverMetrics
  /** Latency and errors per HTTP route, per queue's jobs and per bank API endpoint. */
  traffic: TrafficMetrics
  /** Adds a gauge whose value is read from `collect` on every scrape. */
  registerGauge(spec: GaugeSpec): void
  /** Sets (or replaces) the collector of a registered gauge, such as OPEN_INCIDENTS_GAUGE or MATCH_RATE_GAUGE. */
  feed(name: string, collect: GaugeCollector): void
}

export type SidecarMetricsDeps = {
  db: Kysely<Database>
  /** The queues whose depth and age are reported. */
  queues: readonly Pick<Queue, 'name' | 'getJobCounts' | 'getJobs'>[]
  /** The sidecar's clock: sync times in the store are written with it. */
  clock: Clock
  /** BullMQ stamps jobs with the system time. @defaultValue Date.now */
  systemNowMs?: () => number
  logger: Logger
  /** Node.js process metrics (memory, event loop lag, …). @defaultValue true */
  defaultMetrics?: boolean
}

/**
 * The sidecar's one Prometheus registry (GET /metrics). Queue depth and age and sync lag are read on scrape, so
 * a worker-only process reports them as well as the process holding the receiver.
 */
export function createSidecarMetrics(deps: SidecarMetricsDeps): SidecarMetrics {
  const registry = new Registry()
  if (deps.defaultMetrics ?? true) collectDefaultMetrics({ register: registry })
  const receiver = createReceiverMetrics(registry)
  const traffic = createTrafficMetrics(registry)
  const systemNowMs = deps.systemNowMs ?? Date.now
  const collectors = new Map<string, GaugeCollector | undefined>()

  // A failing source (Redis away, a bug in a feeder) drops its samples from this scrape instead of failing it.
  const guarded = async <T>(what: string, read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read()
    } catch (error) {
      deps.logger.warn({ err: error, metric: what }, 'metric source failed during scrape')
      return undefined
    }
  }

  const registerGauge = (spec: GaugeSpec) => {
    collectors.set(spec.name, spec.collect)
    const labelled = (spec.labelNames?.length ?? 0) > 0
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: [...(spec.labelNames ?? [])],
      registers: [registry],
      async collect() {
        this.reset()
        const collect = collectors.get(spec.name)
        // Without a source a plain gauge reads NaN, not a misleading 0; a labelled one has no samples.
        if (!collect) return labelled ? undefined : this.set(Number.NaN)
        const value = await guarded(spec.name, async () => collect())
        if (value === undefined) return labelled ? undefined : this.set(Number.NaN)
        if (typeof value === 'number') return this.set(value)
        for (const sample of value) this.set(sample.labels ?? {}, sample.value)
      },
    })
  }

  registerGauge({
    name: 'bankrec_queue_jobs',
    help: 'Jobs per queue and BullMQ state (waiting, active, delayed, prioritized, completed, failed, …)',
    labelNames: ['queue', 'state'],
    collect: async () => {
      const samples: GaugeSample[] = []
      for (const queue of deps.queues) {
        const counts = await guarded(queue.name, () => queue.getJobCounts())
        for (const [state, value] of Object.entries(counts ?? {})) {
          samples.push({ labels: { queue: queue.name, state }, value })
        }
      }
      return samples
    },
  })
  registerGauge({
    name: 'bankrec_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job waiting for a worker, per queue (0 when none waits)',
    labelNames: ['queue'],
    collect: async () => {
      const samples: GaugeSample[] = []
      for (const queue of deps.queues) {
        const stats = await guarded(queue.name, () => queueStats(queue, systemNowMs()))
        if (stats) samples.push({ labels: { queue: queue.name }, value: stats.oldestWaitingSeconds })
      }
      return samples
    },
  })
  registerGauge({
    name: 'bankrec_sync_lag_seconds',
    help: 'Seconds since the last successful sync of each connection',
    labelNames: ['connection_id'],
    collect: async () =>
      (await syncLags(deps.db, deps.clock.now())).flatMap((lag) =>
        lag.lagSeconds === null
          ? []
          : [{ labels: { connection_id: lag.connectionId }, value: lag.lagSeconds }],
      ),
  })
  registerGauge({
    // Read from the store, so every process reports the same count whichever worker met the events. A gauge (a
    // count read, not one this process increments), so no `_total`: earlier versions named it
    // bankrec_uninterpretable_events_total (docs/operations.md).
    name: 'bankrec_uninterpretable_events',
    help: 'Webhook events the worker could not interpret (recorded, alerted once per problem, safety-net synced), by problem',
    labelNames: ['problem'],
    collect: async () =>
      (await countUninterpretableEvents(deps.db)).map((row) => ({
        labels: { problem: row.problem },
        value: row.count,
      })),
  })
  registerGauge({
    name: OPEN_INCIDENTS_GAUGE,
    help: 'Open connection incidents (a connection that needs a human, or a stale sync), by kind',
    labelNames: ['kind'],
  })
  registerGauge({
    name: MATCH_RATE_GAUGE,
    help: 'Share of incoming payments matched to invoices, 0 to 1 (NaN until the matcher reports)',
  })

  return {
    registry,
    receiver,
    traffic,
    registerGauge,
    feed(name, collect) {
      if (!collectors.has(name)) throw new Error(`No gauge ${name} is registered; call registerGauge first.`)
      collectors.set(name, collect)
    },
  }
}

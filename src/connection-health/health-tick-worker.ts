import type { Queue, Worker } from 'bullmq'
import type { Logger } from '../observability/index.js'
import {
  CONNECTION_HEALTH_QUEUE,
  createBackendWorker,
  HEALTH_TICK_SCHEDULER,
  type HealthTickJobData,
  type QueueBackendConfig,
} from '../queue/index.js'
import type { AlertPipeline } from '../alert-delivery/alert-publisher.js'
import type { ConnectionHealthMonitor } from './connection-health-monitor.js'

/** A pending delivery this much older than its last touch was lost between a commit and its queueing. */
const LOST_DELIVERY_AFTER_MS = 60_000

/**
 * One tick: poll the bank for every connection's status (webhooks can be lost), run the time-driven rules on
 * bankrec's clock, and queue deliveries a crash left behind. The job scheduler runs at most one at a time.
 */
export function createHealthTickWorker(deps: {
  backend: QueueBackendConfig
  monitor: ConnectionHealthMonitor
  alerts: AlertPipeline
  logger: Logger
}): Worker<HealthTickJobData> {
  return createBackendWorker<HealthTickJobData>(
    CONNECTION_HEALTH_QUEUE,
    deps.backend,
    async () => {
      const polled = await deps.monitor.pollBank()
      const { connections } = await deps.monitor.tickAll()
      const requeued = await deps.alerts.requeueStale(new Date(Date.now() - LOST_DELIVERY_AFTER_MS))
      deps.logger.debug({ polled, connections, requeued }, 'connection health tick')
      return { polled, connections, requeued }
    },
    { concurrency: 1 },
  )
}

/** Runs the tick every `seconds` (real time; the rules themselves read bankrec's clock). */
export async function scheduleHealthTicks(queue: Queue<HealthTickJobData>, seconds: number): Promise<void> {
  await queue.upsertJobScheduler(
    HEALTH_TICK_SCHEDULER,
    { every: seconds * 1000 },
    { name: 'tick', data: { reason: 'schedule' }, opts: { removeOnComplete: true, removeOnFail: 100 } },
  )
}

import type { Queue } from 'bullmq'
import type { Kysely } from 'kysely'
import { sinksFor, type AlertConfig, type AlertNotice } from '../alerts/index.js'
import { stalePendingDeliveries, storeNotices, type Database, type DeliveryRef } from '../store/index.js'
import { ALERT_DELIVERY_JOB_OPTIONS, deliveryJobId, type AlertDeliveryJobData } from '../queue/index.js'

/** What the rest of bankrec uses to tell operations something. */
export type AlertPublisher = {
  /**
   * Stores each notice once (by its id) and queues its delivery to the sinks its severity routes to. Publishing
   * the same notice again sends nothing new.
   */
  publish(notices: AlertNotice[]): Promise<void>
}

export type AlertPipeline = AlertPublisher & {
  /** Stores notices with the caller's transaction; queue the returned deliveries once it has committed. */
  store(db: Kysely<Database>, notices: AlertNotice[]): Promise<DeliveryRef[]>
  enqueue(deliveries: DeliveryRef[]): Promise<void>
  /** Queues deliveries left pending by a crash between a commit and its queueing. */
  requeueStale(before: Date): Promise<number>
}

export function createAlertPipeline(deps: {
  db: Kysely<Database>
  queue: Queue<AlertDeliveryJobData>
  config: AlertConfig
}): AlertPipeline {
  const store = (db: Kysely<Database>, notices: AlertNotice[]) =>
    storeNotices(
      db,
      notices.map((notice) => ({ notice, sinks: sinksFor(notice.routeSeverity, deps.config) })),
    )
  // A job id already in the queue (waiting, active or finished) makes the add a no-op.
  const enqueue = async (deliveries: DeliveryRef[]) => {
    if (deliveries.length === 0) return
    await deps.queue.addBulk(
      deliveries.map((ref) => ({
        name: ref.sink,
        data: ref,
        opts: { ...ALERT_DELIVERY_JOB_OPTIONS, jobId: deliveryJobId(ref) },
      })),
    )
  }
  return {
    store,
    enqueue,
    async publish(notices) {
      const deliveries = await deps.db.transaction().execute((trx) => store(trx, notices))
      await enqueue(deliveries)
    },
    async requeueStale(before) {
      const deliveries = await stalePendingDeliveries(deps.db, before)
      await enqueue(deliveries)
      return deliveries.length
    },
  }
}

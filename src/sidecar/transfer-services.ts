import { TransferPollSchedule } from '../alerts/index.js'
import { startAppEventDelivery } from '../app-events/index.js'
import { startTransferTracker, type TrackerContext, type TransferContext } from '../transfers/index.js'
import type { OutboundWorkers, SidecarContext } from './context.js'

/** What transfer routes and commands need from a running sidecar. */
export function transferContextOf(context: SidecarContext): TransferContext {
  return { db: context.store.db, client: context.bank.client, clock: context.clock, logger: context.logger }
}

export function trackerContextOf(context: SidecarContext): TrackerContext {
  const { config } = context
  return {
    ...transferContextOf(context),
    alerts: context.alerts,
    pollSchedule: TransferPollSchedule.parse({
      initialSeconds: config.TRANSFER_POLL_INITIAL_SECONDS,
      maxSeconds: config.TRANSFER_POLL_MAX_SECONDS,
    }),
    reminderSeconds: config.ALERT_REMINDER_SECONDS,
  }
}

/** The worker role's outbound side: the transfer tracker and the delivery of app events. */
export async function startOutboundWorkers(context: SidecarContext): Promise<OutboundWorkers> {
  const { config } = context
  const appEvents = await startAppEventDelivery({
    db: context.store.db,
    connectionString: context.store.connectionString,
    schema: context.store.schema,
    backend: context.backend,
    clock: context.clock,
    logger: context.logger,
    target:
      config.APP_WEBHOOK_URL && config.APP_WEBHOOK_SECRET
        ? { url: config.APP_WEBHOOK_URL, secret: config.APP_WEBHOOK_SECRET }
        : null,
    rescanSeconds: config.APP_EVENTS_RESCAN_SECONDS,
    concurrency: config.WORKER_CONCURRENCY,
  })
  const tracker = startTransferTracker(trackerContextOf(context), {
    scanSeconds: config.TRANSFER_SCAN_SECONDS,
  })
  return {
    tracker,
    appEvents,
    async close() {
      await tracker.close()
      await appEvents.close()
    },
  }
}

import { TransferPollSchedule } from '../alerts/index.js'
import type { TrackerContext, TransferContext } from '../transfers/index.js'
import type { SidecarContext } from './context.js'

/** What transfer routes and commands need from a running sidecar. */
export function transferContextOf(
  context: Pick<SidecarContext, 'store' | 'bank' | 'clock' | 'logger'>,
): TransferContext {
  return { db: context.store.db, client: context.bank.client, clock: context.clock, logger: context.logger }
}

export function trackerContextOf(
  context: Pick<SidecarContext, 'config' | 'store' | 'bank' | 'clock' | 'logger' | 'alerts'>,
): TrackerContext {
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

import type { Kysely } from 'kysely'
import type { AlertNotice, TransferPollSchedule } from '../alerts/index.js'
import type { BankClient } from '../api-client/index.js'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import type { Database } from '../store/index.js'

/** What creating, retrying and reading transfers needs. */
export type TransferContext = {
  db: Kysely<Database>
  client: BankClient
  clock: Clock
  logger: Logger
  /** Makes bankrec's transfer ids and the idempotency keys it generates. @defaultValue crypto.randomUUID */
  generateId?: () => string
}

/** What the tracker needs on top: where alerts go and how often to poll and remind. */
export type TrackerContext = TransferContext & {
  alerts: { publish(notices: AlertNotice[]): Promise<void> }
  pollSchedule: TransferPollSchedule
  /** ALERT_REMINDER_SECONDS: reminders while a transfer awaits approval in the bank portal. */
  reminderSeconds: number
}

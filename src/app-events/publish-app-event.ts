import type { Kysely } from 'kysely'
import { insertAppEvent, notifyAppEvent, type Database } from '../store/index.js'
import { AppEventInput } from './app-event.js'

/**
 * Records an event for the app in the outbox. Pass the caller's transaction (`trx`) so the event commits with
 * the state change it reports, or rolls back with it. Delivery starts once the transaction commits. Returns
 * false when an event with this id was already recorded (nothing changes).
 */
export async function publishAppEvent(db: Kysely<Database>, event: AppEventInput): Promise<boolean> {
  const parsed = AppEventInput.parse(event)
  const inserted = await insertAppEvent(db, parsed)
  if (inserted) await notifyAppEvent(db, parsed.id)
  return inserted
}

import type { Kysely } from 'kysely'
import { insertAppEvents, notifyAppEvents, type Database } from '../store/index.js'
import { AppEventInput } from './app-event.js'

/**
 * Records events for the app in the outbox, in one statement and one NOTIFY statement however many there are.
 * Pass the caller's transaction (`trx`) so the events commit with the state change they report, or roll back
 * with it. Delivery starts once the transaction commits. Returns the ids newly recorded: an id already recorded
 * changes nothing.
 */
export async function publishAppEvents(
  db: Kysely<Database>,
  events: readonly AppEventInput[],
): Promise<string[]> {
  const parsed = events.map((event) => AppEventInput.parse(event))
  const inserted = await insertAppEvents(db, parsed)
  await notifyAppEvents(db, inserted)
  return inserted
}

/** One event: false when its id was already recorded. */
export async function publishAppEvent(db: Kysely<Database>, event: AppEventInput): Promise<boolean> {
  return (await publishAppEvents(db, [event])).length === 1
}

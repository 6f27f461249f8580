import type { Kysely } from 'kysely'
import type { Database } from './database.js'

export type EventOutcome = 'processed' | 'ignored' | 'uninterpretable'

/**
 * Claims an event for processing: true the first time, false when it was already processed (a redelivery or a
 * retried job), so each event's effects happen once. Run it in the transaction that writes the effects.
 */
export async function claimEvent(
  db: Kysely<Database>,
  eventId: string,
  type: string,
  outcome: EventOutcome,
): Promise<boolean> {
  const inserted = await db
    .insertInto('processed_events')
    .values({ event_id: eventId, type, outcome })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .returning('event_id')
    .executeTakeFirst()
  return inserted !== undefined
}

export async function isEventProcessed(db: Kysely<Database>, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom('processed_events')
    .select('event_id')
    .where('event_id', '=', eventId)
    .executeTakeFirst()
  return row !== undefined
}

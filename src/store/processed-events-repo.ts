import { sql, type Kysely } from 'kysely'
import type { MirroredConnection } from './connections-repo.js'
import type { Database } from './database.js'
import { UNINTERPRETABLE_EVENT_EXCEPTION } from './uninterpretable-events-repo.js'

export type EventOutcome = 'processed' | 'ignored' | 'uninterpretable'

/**
 * Claims an event for processing (at `at`, the database's time when absent): true the first time, false when it was already processed (a redelivery or a
 * retried job), so each event's effects happen once. Run it in the transaction that writes the effects.
 */
export async function claimEvent(
  db: Kysely<Database>,
  eventId: string,
  type: string,
  outcome: EventOutcome,
  at?: Date,
): Promise<boolean> {
  const inserted = await db
    .insertInto('processed_events')
    .values({ event_id: eventId, type, outcome, ...(at ? { processed_at: at } : {}) })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .returning('event_id')
    .executeTakeFirst()
  return inserted !== undefined
}

/**
 * Whether the event was processed, and the mirrored row of the connection it names (undefined when there is none,
 * or no id): the two reads every webhook event starts with, in one round trip (issue 29).
 */
export async function readEventAndConnection(
  db: Kysely<Database>,
  eventId: string,
  connectionId: string | null,
): Promise<{ processed: boolean; connection: MirroredConnection | undefined }> {
  const { rows } = await sql<MirroredConnection & { event_processed: boolean }>`
    select c.*, exists (select 1 from processed_events where event_id = ${eventId}) as event_processed
    from (select 1) as one left join connections c on c.id = ${connectionId}`.execute(db)
  const { event_processed: processed, ...connection } = rows[0]!
  return { processed, connection: connection.id === null ? undefined : connection }
}

/**
 * Deletes the records of events processed before `processedBefore`, and the kept bodies of uninterpretable events
 * recorded before `uninterpretableBefore` whose exception is resolved (an open one still shows its event). Both
 * only ever grew (issue 26). Returns how many rows of each went.
 */
export async function pruneEventRecords(
  db: Kysely<Database>,
  cutoffs: { processedBefore: Date; uninterpretableBefore: Date },
): Promise<{ processed: number; uninterpretable: number }> {
  const processed = await db
    .deleteFrom('processed_events')
    .where('processed_at', '<', cutoffs.processedBefore)
    .executeTakeFirst()
  const uninterpretable = await db
    .deleteFrom('uninterpretable_events')
    .where('recorded_at', '<', cutoffs.uninterpretableBefore)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('match_exceptions')
            .select('key')
            .where(
              'match_exceptions.key',
              '=',
              sql<string>`${UNINTERPRETABLE_EVENT_EXCEPTION}::text || ':' || uninterpretable_events.event_id`,
            )
            .where('match_exceptions.resolved_at', 'is', null),
        ),
      ),
    )
    .executeTakeFirst()
  return {
    processed: Number(processed.numDeletedRows),
    uninterpretable: Number(uninterpretable.numDeletedRows),
  }
}

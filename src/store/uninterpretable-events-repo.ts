import type { Kysely } from 'kysely'
import type { Database } from './database.js'
import { findException, openException } from './match-exceptions-repo.js'

export type UninterpretableEventWrite = {
  eventId: string
  type: string | null
  problem: string
  detail: string
  connectionIds: string[]
  /** The delivered JSON text. */
  body: string
  receivedAt: Date | string
  /** What bankrec did about it, in words (shown with the exception). */
  action: string
}

/** The exception that shows an uninterpretable event among the others (GET /api/exceptions, the dashboard). */
export const UNINTERPRETABLE_EVENT_EXCEPTION = 'uninterpretable_event'

export function uninterpretableEventKey(eventId: string): string {
  return `${UNINTERPRETABLE_EVENT_EXCEPTION}:${eventId}`
}

/** Keeps the event with its body and opens its exception; run it in the transaction that claims the event. */
export async function recordUninterpretableEvent(
  db: Kysely<Database>,
  event: UninterpretableEventWrite,
  at: Date,
): Promise<void> {
  await db
    .insertInto('uninterpretable_events')
    .values({
      event_id: event.eventId,
      type: event.type,
      problem: event.problem,
      detail: event.detail,
      connection_ids: event.connectionIds,
      body: event.body,
      received_at: event.receivedAt,
      recorded_at: at,
    })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .execute()
  const key = uninterpretableEventKey(event.eventId)
  await openException(
    db,
    {
      key,
      type: UNINTERPRETABLE_EVENT_EXCEPTION,
      transactionId: null,
      transferId: null,
      invoiceIds: [],
      amount: null,
      confidence: null,
      settled: false,
      reasons: [
        `Webhook event ${event.eventId}${event.type ? ` (${event.type})` : ''} could not be interpreted: ${event.detail}`,
        event.action,
      ],
      evidence: [],
    },
    await findException(db, key),
    at,
  )
}

/** Uninterpretable events recorded so far, by problem (GET /metrics). */
export async function countUninterpretableEvents(
  db: Kysely<Database>,
): Promise<Array<{ problem: string; count: number }>> {
  const rows = await db
    .selectFrom('uninterpretable_events')
    .select((eb) => ['problem', eb.fn.countAll<string>().as('count')])
    .groupBy('problem')
    .execute()
  return rows.map((row) => ({ problem: row.problem, count: Number(row.count) }))
}

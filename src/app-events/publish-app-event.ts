import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import { z } from 'zod'
import { currentTraceparent } from '../observability/index.js'
import { recordAppEvents, type Database } from '../store/index.js'

/**
 * An event for the company's own app. The id is the caller's and must be stable for the fact it reports
 * (derived from it, never random at publish time), so a replayed effect never makes a second event.
 */
export const AppEventInput = z.object({
  id: z.string().min(1).max(255),
  type: z.string().regex(/^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/, 'must look like invoice.paid'),
  data: z.record(z.string(), z.unknown()),
  /** When the fact happened on bankrec's clock. @defaultValue the database's now() */
  createdAt: z.date().optional(),
})
export type AppEventInput = z.input<typeof AppEventInput>

/**
 * Records events for the app in the outbox and announces them, in one statement however many there are.
 * Pass the caller's transaction (`trx`) so the events commit with the state change they report, or roll back
 * with it. Delivery starts once the transaction commits. Returns the ids newly recorded: an id already recorded
 * changes nothing.
 */
export async function publishAppEvents(
  db: Kysely<Database>,
  events: readonly AppEventInput[],
): Promise<string[]> {
  const parsed = events.map((event) => AppEventInput.parse(event))
  // Their send (on the commit's NOTIFY, in whichever process leases them) continues this trace.
  return recordAppEvents(db, parsed, currentTraceparent())
}

/** One event: false when its id was already recorded. */
export async function publishAppEvent(db: Kysely<Database>, event: AppEventInput): Promise<boolean> {
  return (await publishAppEvents(db, [event])).length === 1
}

/**
 * An event id derived from the parts that name its fact (say, an invoice, the state it reached, its allocations
 * and the nth time its status changed): the same fact always gets the same id, so a replayed effect never sends a
 * second event.
 */
export function stableEventId(...parts: readonly string[]): string {
  return `evt_${createHash('sha256').update(parts.join('\u001f')).digest('hex').slice(0, 40)}`
}

/** What the rest of bankrec uses to tell the company's own app something. */
export type AppEvents = {
  /**
   * Records an event in the outbox with the caller's transaction; it is sent once that commits. False when the
   * id was already recorded.
   */
  publish(db: Kysely<Database>, event: AppEventInput): Promise<boolean>
  /** Several events in one statement; returns the ids newly recorded. */
  publishAll(db: Kysely<Database>, events: readonly AppEventInput[]): Promise<string[]>
  /** Whether events are sent (APP_WEBHOOK_URL is set) or only recorded. */
  readonly sending: boolean
}

/** The publishing face of app events; `sending` says whether a target is configured. */
export function createAppEvents(target: { url: string } | null): AppEvents {
  return { publish: publishAppEvent, publishAll: publishAppEvents, sending: target !== null }
}

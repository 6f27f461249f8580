import { pathsOf, valueAt } from './envelope-paths.js'

// The event's type, read with one reader (eventTypeOf) for both roles, so what the receiver labels, counts and
// answers is what the worker then does. Pure.

/**
 * Fields that name the event type, relative to each envelope root: the first value that names a type bankrec
 * knows (TYPE_ALIASES) wins, else the first non-blank string.
 */
export const EVENT_TYPE_FIELDS = ['type', 'eventType', 'event_type', 'event', 'kind', 'topic'] as const

/** Why a delivered event needs no processing: reserved by the seed for a future producer, or not known at all. */
export type IgnoredReason = 'reserved_type' | 'unknown_type'

export type Known = 'sync_available' | 'status_changed' | 'test' | 'reserved'

/**
 * Event types compared without case and separators: `connection.status_changed`, `CONNECTION_STATUS_CHANGED`, …
 * The seed's reserved types (account.created, account.updated, transfer.status_changed) are known, and ignored.
 */
const TYPE_ALIASES: ReadonlyMap<string, Known> = new Map([
  ['transactionssyncavailable', 'sync_available'],
  ['transactionsyncavailable', 'sync_available'],
  ['syncavailable', 'sync_available'],
  ['connectionstatuschanged', 'status_changed'],
  ['connectionstatusupdated', 'status_changed'],
  ['connectionstatuschange', 'status_changed'],
  ['test', 'test'],
  ['ping', 'test'],
  ['webhooktest', 'test'],
  ['accountcreated', 'reserved'],
  ['accountupdated', 'reserved'],
  ['transferstatuschanged', 'reserved'],
])

export const squash = (value: string) => value.toLowerCase().replace(/[^a-z0-9]/g, '')

const TYPE_PATHS = pathsOf(EVENT_TYPE_FIELDS, [''])

/** The event's type as delivered (never the alias) and what bankrec knows it as, or undefined for none. */
export function eventTypeOf(body: unknown): { type: string; known: Known | undefined } | undefined {
  let first: string | undefined
  for (const path of TYPE_PATHS) {
    const value = valueAt(body, path)
    if (typeof value !== 'string' || value.trim() === '') continue
    const known = TYPE_ALIASES.get(squash(value))
    if (known) return { type: value, known }
    first ??= value
  }
  return first === undefined ? undefined : { type: first, known: undefined }
}

/** Why an event of this type is acknowledged without processing; undefined when bankrec acts on it. */
export function ignoredReasonOf(known: Known | undefined): IgnoredReason | undefined {
  if (known === undefined) return 'unknown_type'
  return known === 'reserved' ? 'reserved_type' : undefined
}

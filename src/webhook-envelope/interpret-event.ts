import { ConnectionStatus } from '../api-client/index.js'
import { ENVELOPE_ROOTS, pathsOf, valueAt } from './envelope-paths.js'
import { EVENT_TYPE_FIELDS, eventTypeOf, ignoredReasonOf, squash, type IgnoredReason } from './event-type.js'

// In the worker: what a delivered event says, whatever plausible dialect the service speaks. Pure.

/** Fields that carry the connection id, relative to a data container. */
const CONNECTION_ID_FIELDS = [
  'connectionId',
  'connection_id',
  'connectionID',
  'connection.id',
  'connection',
] as const

/**
 * For connection events only: the data object may be the connection itself, so its `id` is the connection id.
 * Never for other types, where `data.id` is something else.
 */
const CONNECTION_OBJECT_ID_FIELDS = ['id'] as const

const STATUS_FIELDS = [
  'status',
  'newStatus',
  'new_status',
  'currentStatus',
  'current_status',
  'connection.status',
  'to',
] as const
const PREVIOUS_STATUS_FIELDS = [
  'previousStatus',
  'previous_status',
  'oldStatus',
  'old_status',
  'previous.status',
  'previous_attributes.status',
  'from',
] as const
const ERROR_CODE_FIELDS = ['errorCode', 'error_code', 'error.code', 'connection.errorCode'] as const
const ERROR_MESSAGE_FIELDS = [
  'errorMessage',
  'error_message',
  'error.message',
  'connection.errorMessage',
] as const

/** When the bank says the event happened, relative to an envelope root (ISO 8601, or Unix seconds). */
const OCCURRED_AT_FIELDS = [
  'createdAt',
  'created_at',
  'occurredAt',
  'occurred_at',
  'timestamp',
  'time',
  'created',
] as const

/** Why a delivery could not be read as an event bankrec acts on. */
export type UninterpretableProblem =
  | 'not_an_object'
  | 'no_event_type'
  | 'no_connection_id'
  | 'ambiguous_connection_id'
  /** Found by the worker, not here: the bank does not know the connection the event names. */
  | 'unknown_connection'

/** A field the event left out (undefined) is looked up by the worker; null is the bank saying "none". */
export type StatusChangeFields = {
  status: ConnectionStatus | undefined
  previousStatus: ConnectionStatus | null | undefined
  errorCode: string | null | undefined
  errorMessage: string | null | undefined
  /** ISO time the bank gave the event, if any. */
  occurredAt: string | undefined
}

export type InterpretedEvent =
  | { kind: 'sync_available'; type: string; connectionId: string }
  | ({ kind: 'status_changed'; type: string; connectionId: string } & StatusChangeFields)
  | { kind: 'test'; type: string }
  | { kind: 'ignored'; type: string; reason: IgnoredReason }
  | {
      kind: 'uninterpretable'
      type: string | null
      problem: UninterpretableProblem
      /** Every plausible connection id found: the safety-net sync covers these, or all when empty. */
      connectionIds: string[]
      /** In words, for the exception and the log. */
      detail: string
    }

const STATUSES: ReadonlyMap<string, ConnectionStatus> = new Map(
  ConnectionStatus.options.map((status) => [squash(status), status]),
)

/** `reauthRequired`, `REAUTH_REQUIRED`, `reauth-required` all name one status. */
export function connectionStatusOf(value: unknown): ConnectionStatus | undefined {
  return typeof value === 'string' ? STATUSES.get(squash(value)) : undefined
}

// An id is one line of printable text of a sane length; anything else is not an id whatever field holds it.
const PLAUSIBLE_ID = /^[^\p{Cc}\s][^\p{Cc}]{0,199}$/u

function idsAt(body: unknown, paths: readonly string[]): string[] {
  const ids = new Set<string>()
  for (const path of paths) {
    const value = valueAt(body, path)
    if (typeof value === 'string' && PLAUSIBLE_ID.test(value.trim())) ids.add(value.trim())
  }
  return [...ids]
}

const CONNECTION_ID_PATHS = pathsOf(CONNECTION_ID_FIELDS)
const CONNECTION_OBJECT_ID_PATHS = pathsOf(CONNECTION_OBJECT_ID_FIELDS).filter((path) =>
  // The envelope's own id is the event id, never the connection's.
  ENVELOPE_ROOTS.every((root) => path !== `${root}id`),
)

/** The first value found for `fields`: a string, null (said "none"), or undefined (not said). */
function optionalText(body: unknown, fields: readonly string[]): string | null | undefined {
  for (const path of pathsOf(fields)) {
    const value = valueAt(body, path)
    if (value === null) return null
    if (typeof value === 'string') return value
  }
  return undefined
}

function firstStatus(body: unknown, fields: readonly string[]): ConnectionStatus | null | undefined {
  let sawNull = false
  for (const path of pathsOf(fields)) {
    const value = valueAt(body, path)
    const status = connectionStatusOf(value)
    if (status) return status
    sawNull ||= value === null
  }
  return sawNull ? null : undefined
}

function occurredAt(body: unknown): string | undefined {
  for (const path of pathsOf(OCCURRED_AT_FIELDS, [''])) {
    const value = valueAt(body, path)
    // Unix seconds (Stripe-like `created`), or milliseconds when that large.
    const millis =
      typeof value === 'number' && Number.isFinite(value)
        ? value > 1e12
          ? value
          : value * 1000
        : typeof value === 'string'
          ? Date.parse(value)
          : Number.NaN
    if (Number.isFinite(millis) && Math.abs(millis) < 8.64e15) return new Date(millis).toISOString()
  }
  return undefined
}

function uninterpretable(
  type: string | null,
  problem: UninterpretableProblem,
  connectionIds: string[],
  detail: string,
): InterpretedEvent {
  return { kind: 'uninterpretable', type, problem, connectionIds, detail }
}

/**
 * Reads one delivered body (any JSON) as the event bankrec acts on, whatever plausible dialect the service
 * speaks: the type under any of EVENT_TYPE_FIELDS, the connection id wherever the paths above list it. Pure: what
 * it cannot tell (a missing status, an unknown connection) the worker looks up.
 */
export function interpretEvent(body: unknown): InterpretedEvent {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return uninterpretable(null, 'not_an_object', [], 'The delivered JSON is not an object.')
  }
  const found = eventTypeOf(body)
  const named = idsAt(body, CONNECTION_ID_PATHS)
  if (!found) {
    return uninterpretable(
      null,
      'no_event_type',
      named,
      `No event type in any of ${EVENT_TYPE_FIELDS.join(', ')} (at the top level or under payload, event or body).`,
    )
  }
  const { type, known } = found
  const ignored = ignoredReasonOf(known)
  if (ignored) return { kind: 'ignored', type, reason: ignored }
  if (known === 'test') return { kind: 'test', type }
  // A connection event's object may be the connection itself; its id counts only when nothing names one.
  const ids =
    named.length === 0 && known === 'status_changed' ? idsAt(body, CONNECTION_OBJECT_ID_PATHS) : named
  if (ids.length === 0) {
    return uninterpretable(
      type,
      'no_connection_id',
      [],
      `A ${type} event without a connection id in any of ${CONNECTION_ID_FIELDS.join(', ')} ` +
        '(under data, data.object, object, payload, resource or the envelope).',
    )
  }
  if (ids.length > 1) {
    return uninterpretable(
      type,
      'ambiguous_connection_id',
      ids,
      `A ${type} event names ${ids.length} different connection ids: ${ids.join(', ')}.`,
    )
  }
  const connectionId = ids[0]!
  if (known === 'sync_available') return { kind: 'sync_available', type, connectionId }
  return {
    kind: 'status_changed',
    type,
    connectionId,
    status: firstStatus(body, STATUS_FIELDS) ?? undefined,
    previousStatus: firstStatus(body, PREVIOUS_STATUS_FIELDS),
    errorCode: optionalText(body, ERROR_CODE_FIELDS),
    errorMessage: optionalText(body, ERROR_MESSAGE_FIELDS),
    occurredAt: occurredAt(body),
  }
}

import { ConnectionStatus } from '../api-client/index.js'

/**
 * Where plausible dialects put each part of a webhook delivery. The seed leaves the payload shape open
 * ("Payload shape of deliveries: not shown"), so the worker looks in every place below, in this order. A path is
 * dotted from the delivered body; `*` stands for each envelope root.
 */

/** Where the envelope itself may sit: the body, or a wrapper around it. */
const ENVELOPE_ROOTS = ['', 'payload.', 'event.', 'body.'] as const

/** Fields that name the event type, relative to an envelope root. */
const TYPE_FIELDS = ['type', 'eventType', 'event_type', 'event', 'kind'] as const

/** Where the event's object may sit, relative to an envelope root ('' is the envelope itself). */
const DATA_CONTAINERS = ['data.', 'data.object.', 'object.', 'payload.', 'resource.', ''] as const

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

/** Every full path for `fields` under every root and container, in lookup order. */
function pathsOf(fields: readonly string[], containers: readonly string[] = DATA_CONTAINERS): string[] {
  return ENVELOPE_ROOTS.flatMap((root) =>
    containers.flatMap((container) => fields.map((field) => `${root}${container}${field}`)),
  )
}

/** The value at a dotted path, or undefined when any step is missing or not an object. */
function valueAt(body: unknown, path: string): unknown {
  let at: unknown = body
  for (const key of path.split('.')) {
    if (typeof at !== 'object' || at === null || Array.isArray(at)) return undefined
    if (!Object.hasOwn(at, key)) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return at
}

// ── the reading ─────────────────────────────────────────────────────────────────────────────────────────────────

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
  | { kind: 'ignored'; type: string; reason: 'reserved_type' | 'unknown_type' }
  | {
      kind: 'uninterpretable'
      type: string | null
      problem: UninterpretableProblem
      /** Every plausible connection id found: the safety-net sync covers these, or all when empty. */
      connectionIds: string[]
      /** In words, for the exception and the log. */
      detail: string
    }

type Known = 'sync_available' | 'status_changed' | 'test' | 'reserved'

/** Event types compared without case and separators: `connection.status_changed`, `CONNECTION_STATUS_CHANGED`, … */
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

const squash = (value: string) => value.toLowerCase().replace(/[^a-z0-9]/g, '')

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

const TYPE_PATHS = pathsOf(TYPE_FIELDS, [''])
const CONNECTION_ID_PATHS = pathsOf(CONNECTION_ID_FIELDS)
const CONNECTION_OBJECT_ID_PATHS = pathsOf(CONNECTION_OBJECT_ID_FIELDS).filter((path) =>
  // The envelope's own id is the event id, never the connection's.
  ENVELOPE_ROOTS.every((root) => path !== `${root}id`),
)

function eventType(body: unknown): { type: string; known: Known | undefined } | undefined {
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
 * speaks: the type under any of TYPE_FIELDS, the connection id wherever the paths above list it. Pure: what it
 * cannot tell (a missing status, an unknown connection) the worker looks up.
 */
export function interpretEvent(body: unknown): InterpretedEvent {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return uninterpretable(null, 'not_an_object', [], 'The delivered JSON is not an object.')
  }
  const found = eventType(body)
  const named = idsAt(body, CONNECTION_ID_PATHS)
  if (!found) {
    return uninterpretable(
      null,
      'no_event_type',
      named,
      `No event type in any of ${TYPE_FIELDS.join(', ')} (at the top level or under payload, event or body).`,
    )
  }
  const { type, known } = found
  if (known === 'test') return { kind: 'test', type }
  if (known === 'reserved') return { kind: 'ignored', type, reason: 'reserved_type' }
  if (known === undefined) return { kind: 'ignored', type, reason: 'unknown_type' }
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

import { createHash } from 'node:crypto'
import { ConnectionStatus } from '../api-client/index.js'
import {
  MAX_JSON_DEPTH,
  isUnstorableText,
  jsonTextNestsDeeperThan,
  unstorableJsonAt,
} from '../storable-json/index.js'

// The service's webhook envelope, read in one place for both roles: at the door (parseEnvelope: storable? which
// event id? which type, and does bankrec act on it?) and in the worker (interpretEvent: what the event says).
// Both read the type with one reader (eventTypeOf), so what the receiver labels, counts and answers is what the
// worker then does. Pure.

/**
 * Where plausible dialects put each part of a webhook delivery. The seed leaves the payload shape open ("Payload
 * shape of deliveries: not shown"), so bankrec looks in every place below, in this order. A path is dotted from
 * the delivered body; `*` stands for each envelope root.
 */

/** Where the envelope itself may sit: the body, or a wrapper around it. */
const ENVELOPE_ROOTS = ['', 'payload.', 'event.', 'body.'] as const

/**
 * Where an envelope may carry its event id, at the top level, first match wins. A per-attempt delivery id
 * (`deliveryId`) is deliberately not one: a redelivery would carry a new one and be processed twice.
 */
export const EVENT_ID_FIELDS = [
  'id',
  'eventId',
  'event_id',
  'webhookEventId',
  'notificationId',
  'messageId',
  'message_id',
] as const

/**
 * Fields that name the event type, relative to each envelope root: the first value that names a type bankrec
 * knows (TYPE_ALIASES) wins, else the first non-blank string.
 */
export const EVENT_TYPE_FIELDS = ['type', 'eventType', 'event_type', 'event', 'kind', 'topic'] as const

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

// ── the type, read once for both roles ──────────────────────────────────────────────────────────────────────────

/** Why a delivered event needs no processing: reserved by the seed for a future producer, or not known at all. */
export type IgnoredReason = 'reserved_type' | 'unknown_type'

type Known = 'sync_available' | 'status_changed' | 'test' | 'reserved'

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

const squash = (value: string) => value.toLowerCase().replace(/[^a-z0-9]/g, '')

const TYPE_PATHS = pathsOf(EVENT_TYPE_FIELDS, [''])

/** The event's type as delivered (never the alias) and what bankrec knows it as, or undefined for none. */
function eventTypeOf(body: unknown): { type: string; known: Known | undefined } | undefined {
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
function ignoredReasonOf(known: Known | undefined): IgnoredReason | undefined {
  if (known === undefined) return 'unknown_type'
  return known === 'reserved' ? 'reserved_type' : undefined
}

// ── at the door: the envelope read from its verified body ───────────────────────────────────────────────────────

/** The job name of an event whose envelope names no type: queued for the worker, which decides what it is. */
export const UNTYPED_EVENT = '(untyped)'

/** Prefix of the id derived from the signed body when the envelope carries none (see EVENT_ID_FIELDS). */
export const BODY_ID_PREFIX = 'body-sha256-'

const MAX_ID_LENGTH = 255

/**
 * JSON is UTF-8 (RFC 8259 §8.1): invalid bytes are refused rather than replaced with U+FFFD, so what is queued is
 * exactly what was signed. A byte order mark is kept, so JSON.parse refuses it.
 */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export type EnvelopeProblem = { path: string; message: string }

/** Why a body cannot be stored, so is refused even when its signature verifies. */
export type EnvelopeRefusal =
  'invalid_utf8' | 'invalid_json' | 'not_an_object' | 'too_deep' | 'unstorable_text'

export type ParsedEnvelope =
  | {
      ok: true
      /** The envelope exactly as delivered (unknown fields kept). */
      event: Record<string, unknown>
      /** Its JSON text, as delivered. */
      text: string
      eventId: string
      /** The envelope field the id came from, or `body` when it was derived from the signed body. */
      eventIdFrom: (typeof EVENT_ID_FIELDS)[number] | 'body'
      /** The type as delivered, or UNTYPED_EVENT. */
      type: string
      /** Set exactly when interpretEvent will say `ignored`, for the same reason. */
      ignored?: IgnoredReason
    }
  | { ok: false; code: EnvelopeRefusal; message: string; details: EnvelopeProblem[] }

function refused(code: EnvelopeRefusal, message: string, details: EnvelopeProblem[] = []): ParsedEnvelope {
  return { ok: false, code, message, details }
}

function idOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  if (typeof value !== 'string' || value.length > MAX_ID_LENGTH || value.trim() === '') return undefined
  return value
}

/**
 * Reads a verified delivery body at the door: what is authentic and storable is accepted whatever its shape
 * (issue 14: a real service's dialect must never cost a refused event), and only what cannot be stored is
 * refused. The event id is looked up under several names; the type as the worker reads it (eventTypeOf), so an
 * event is labelled ignored exactly when the worker will ignore it. Interpreting the rest is the worker's job.
 */
export function parseEnvelope(body: string | Uint8Array): ParsedEnvelope {
  let text: string
  try {
    text = typeof body === 'string' ? body : STRICT_UTF8.decode(body)
  } catch {
    return refused('invalid_utf8', 'The body is not valid UTF-8.')
  }
  // Before parsing: a body nested thousands deep could not be stored or serialised (issue 17, finding 2).
  if (jsonTextNestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return refused('too_deep', `The body nests deeper than ${MAX_JSON_DEPTH} levels.`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return refused('invalid_json', 'The body is not valid JSON.')
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return refused('not_an_object', 'The body must be a JSON object (the event envelope).')
  }
  // Raw control characters are not JSON, so U+0000 can only come from a \u escape: most bodies skip the walk.
  // Bytes decoded strictly hold no unpaired surrogate; a string body (express.text()) might.
  const suspect = text.includes('\\u') || (typeof body === 'string' && isUnstorableText(text))
  const problem = suspect ? unstorableJsonAt(json, 'body') : undefined
  if (problem !== undefined) {
    return refused('unstorable_text', `${problem.path} ${problem.message}, which PostgreSQL cannot store.`, [
      problem,
    ])
  }
  const event = json as Record<string, unknown>
  let eventId: string | undefined
  let eventIdFrom: (typeof EVENT_ID_FIELDS)[number] | 'body' = 'body'
  for (const field of EVENT_ID_FIELDS) {
    eventId = idOf(event[field])
    if (eventId !== undefined) {
      eventIdFrom = field
      break
    }
  }
  // No id: the signed bytes name the event, so the bank's redelivery of the same body is still a duplicate.
  eventId ??= BODY_ID_PREFIX + createHash('sha256').update(body).digest('hex')
  const found = eventTypeOf(event)
  // An untyped event is not ignored: the worker finds it uninterpretable and syncs as a safety net.
  const ignored = found ? ignoredReasonOf(found.known) : undefined
  const type = found?.type ?? UNTYPED_EVENT
  return { ok: true, event, text, eventId, eventIdFrom, type, ...(ignored ? { ignored } : {}) }
}

// ── in the worker: what the event says ──────────────────────────────────────────────────────────────────────────

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

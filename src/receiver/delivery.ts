import { createHash } from 'node:crypto'
import { KnownEvent, WebhookEventType } from '../api-client/index.js'
import type { IgnoredReason } from '../queue/index.js'
import { MAX_JSON_DEPTH, jsonTextNestsDeeperThan, unstorableJsonAt } from '../store/index.js'
import type { SignatureFailureReason } from '../signing/index.js'

// One delivery at the door, both ends pure: the envelope read from its verified body (parseEnvelope) and the
// answer written back (errorAnswer, acceptedAnswer), whose status table also covers the envelope's refusals.

const KNOWN_TYPES: ReadonlySet<string> = new Set(KnownEvent.options.map((option) => option.shape.type.value))
/** Types the seed defines but reserves for a future producer. */
const RESERVED_TYPES: ReadonlySet<string> = new Set(
  WebhookEventType.options.filter((t) => !KNOWN_TYPES.has(t)),
)

/**
 * Where an envelope may carry its event id, first match wins. The seed does not show the delivery payload, so
 * the names other webhook producers use are read too. A per-attempt delivery id (`deliveryId`) is deliberately not
 * one: a redelivery would carry a new one and be processed twice.
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

/** Where an envelope may carry its event type, first string wins. */
export const EVENT_TYPE_FIELDS = ['type', 'eventType', 'event_type', 'event', 'kind', 'topic'] as const

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

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

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
 * refused. The event id and type are looked up under several names; interpreting the rest is the worker's job.
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
  const suspect = text.includes('\\u') || (typeof body === 'string' && LONE_SURROGATE.test(text))
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
  const named = EVENT_TYPE_FIELDS.map((field) => event[field]).find(
    (value): value is string => typeof value === 'string' && value !== '',
  )
  const type = named ?? UNTYPED_EVENT
  const ignored: IgnoredReason | undefined =
    named === undefined || KNOWN_TYPES.has(named)
      ? undefined
      : RESERVED_TYPES.has(named)
        ? 'reserved_type'
        : 'unknown_type'
  return { ok: true, event, text, eventId, eventIdFrom, type, ...(ignored ? { ignored } : {}) }
}

// ── the answer: status and body of every outcome ────────────────────────────────────────────────────────────────

/** What became of a delivery; the metrics count answers by outcome and reason. */
export type DeliveryOutcome = 'queued' | 'ignored' | 'duplicate' | 'rejected' | 'unavailable' | 'error'

/** The answer to one delivery, ready to write. */
export type DeliveryAnswer = {
  status: number
  requestId: string
  outcome: DeliveryOutcome
  /** `ok`, or the stable code of the error (the signature reason for a verification failure). */
  reason: string
  /** Serialized JSON body. */
  body: string
  /** The request body was not read to its end, so the connection cannot be reused. */
  closeConnection: boolean
}

export type ReceiverErrorCode =
  | SignatureFailureReason
  | EnvelopeRefusal
  | 'unqueueable_event'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'invalid_request'
  | 'queue_unavailable'
  | 'internal_error'
  | 'not_found'
  | 'method_not_allowed'

/**
 * Status per error code. A missing header or an unverifiable signature is unauthenticated (401); a header that
 * cannot be parsed is a malformed request (400); a body the app parsed before us, or no secret, is our own setup
 * error (500), which the sender retries while the developer fixes it. A body that cannot be stored is 400; an
 * event the queue refused while the rest of its batch was written is 422 (it would fail the same way again).
 */
const STATUS: Record<ReceiverErrorCode, number> = {
  missing_header: 401,
  no_signature: 401,
  timestamp_outside_tolerance: 401,
  signature_mismatch: 401,
  malformed_header: 400,
  invalid_utf8: 400,
  invalid_json: 400,
  not_an_object: 400,
  too_deep: 400,
  unstorable_text: 400,
  unqueueable_event: 422,
  invalid_request: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  queue_unavailable: 503,
  parsed_body: 500,
  no_secret: 500,
  internal_error: 500,
  not_found: 404,
  method_not_allowed: 405,
}

export function statusOf(code: ReceiverErrorCode): number {
  return STATUS[code]
}

function outcomeOf(status: number): DeliveryOutcome {
  if (status === 503) return 'unavailable'
  return status >= 500 ? 'error' : 'rejected'
}

/** An error answer: `{ error: { code, message, requestId, details? } }`. Messages never carry secrets. */
export function errorAnswer(
  code: ReceiverErrorCode,
  message: string,
  requestId: string,
  options: { details?: { path: string; message: string }[]; closeConnection?: boolean } = {},
): DeliveryAnswer {
  const status = statusOf(code)
  const error = options.details?.length
    ? { code, message, requestId, details: options.details }
    : { code, message, requestId }
  return {
    status,
    requestId,
    outcome: outcomeOf(status),
    reason: code,
    body: JSON.stringify({ error }),
    closeConnection: options.closeConnection ?? false,
  }
}

/** 202 for a newly queued event (also when ignored), 200 for one already queued. */
export function acceptedAnswer(
  eventId: string,
  result: 'queued' | 'duplicate',
  ignored: string | undefined,
  requestId: string,
): DeliveryAnswer {
  if (result === 'duplicate') {
    return {
      status: 200,
      requestId,
      outcome: 'duplicate',
      reason: 'duplicate',
      body: JSON.stringify({ status: 'duplicate', eventId }),
      closeConnection: false,
    }
  }
  return {
    status: 202,
    requestId,
    outcome: ignored ? 'ignored' : 'queued',
    reason: ignored ?? 'ok',
    body: JSON.stringify(
      ignored ? { status: 'ignored', eventId, reason: ignored } : { status: 'queued', eventId },
    ),
    closeConnection: false,
  }
}

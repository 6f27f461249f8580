import { createHash } from 'node:crypto'
import {
  MAX_JSON_DEPTH,
  isUnstorableText,
  jsonTextNestsDeeperThan,
  unstorableJsonAt,
} from '../storable-json/index.js'
import { eventTypeOf, ignoredReasonOf, type IgnoredReason } from './event-type.js'

// The service's webhook envelope at the door (parseEnvelope: storable? which event id? which type, and does
// bankrec act on it?). The type is read with the worker's reader (event-type.ts), so what the receiver labels,
// counts and answers is what the worker then does (interpret-event.ts). Pure.

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

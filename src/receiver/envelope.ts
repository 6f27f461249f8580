import { EventEnvelope, KnownEvent, WebhookEventType } from '../api-client/index.js'
import type { IgnoredReason } from '../queue/index.js'

const KNOWN_TYPES: ReadonlySet<string> = new Set(KnownEvent.options.map((option) => option.shape.type.value))
/** Types the seed defines but reserves for a future producer. */
const RESERVED_TYPES: ReadonlySet<string> = new Set(
  WebhookEventType.options.filter((t) => !KNOWN_TYPES.has(t)),
)

export type EnvelopeProblem = { path: string; message: string }

export type ParsedEnvelope =
  | {
      ok: true
      /** The envelope exactly as delivered (unknown fields kept). */
      event: Record<string, unknown>
      eventId: string
      type: string
      /** The typed event, for known types. */
      known?: KnownEvent
      ignored?: IgnoredReason
    }
  | { ok: false; code: 'invalid_json' | 'invalid_envelope'; message: string; details: EnvelopeProblem[] }

function invalid(details: EnvelopeProblem[]): ParsedEnvelope {
  const summary = details.map((d) => `${d.path} ${d.message}`).join('; ')
  return {
    ok: false,
    code: 'invalid_envelope',
    message: `The event envelope is invalid: ${summary}`,
    details,
  }
}

/**
 * Parses a verified delivery body. Known types are checked against their schema; reserved and unknown types only
 * need a valid envelope, so they can be acknowledged and recorded as ignored.
 */
export function parseEnvelope(body: string | Uint8Array): ParsedEnvelope {
  let json: unknown
  try {
    json = JSON.parse(
      typeof body === 'string'
        ? body
        : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'),
    )
  } catch {
    return { ok: false, code: 'invalid_json', message: 'The body is not valid JSON.', details: [] }
  }
  const envelope = EventEnvelope.safeParse(json)
  if (!envelope.success) {
    return invalid(
      envelope.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message })),
    )
  }
  const event = json as Record<string, unknown>
  const { id: eventId, type } = envelope.data
  if (!KNOWN_TYPES.has(type)) {
    return {
      ok: true,
      event,
      eventId,
      type,
      ignored: RESERVED_TYPES.has(type) ? 'reserved_type' : 'unknown_type',
    }
  }
  const known = KnownEvent.safeParse(json)
  if (!known.success) {
    return invalid(known.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })))
  }
  return { ok: true, event, eventId, type, known: known.data }
}

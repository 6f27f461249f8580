import { EventEnvelope, KnownEvent, WebhookEventType } from '../api-client/index.js'
import type { IgnoredReason } from '../queue/index.js'

const KNOWN_TYPES: ReadonlySet<string> = new Set(KnownEvent.options.map((option) => option.shape.type.value))
/** Types the seed defines but reserves for a future producer. */
const RESERVED_TYPES: ReadonlySet<string> = new Set(
  WebhookEventType.options.filter((t) => !KNOWN_TYPES.has(t)),
)

/**
 * JSON is UTF-8 (RFC 8259 §8.1): invalid bytes are refused rather than replaced with U+FFFD, so what is queued is
 * exactly what was signed. A byte order mark is kept, so JSON.parse refuses it.
 */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export type EnvelopeProblem = { path: string; message: string }

export type ParsedEnvelope =
  | {
      ok: true
      /** The envelope exactly as delivered (unknown fields kept). */
      event: Record<string, unknown>
      /** Its JSON text, as delivered. */
      text: string
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
  let text: string
  let json: unknown
  try {
    text = typeof body === 'string' ? body : STRICT_UTF8.decode(body)
    json = JSON.parse(text)
  } catch {
    return { ok: false, code: 'invalid_json', message: 'The body is not valid UTF-8 JSON.', details: [] }
  }
  // Raw control characters are not JSON, so U+0000 can only come from a \u escape: most bodies skip the walk.
  // Bytes decoded strictly hold no unpaired surrogate; a string body (express.text()) might.
  const suspect = text.includes('\\u') || (typeof body === 'string' && LONE_SURROGATE.test(text))
  const unstorable = suspect ? unstorableStringAt(json) : undefined
  if (unstorable !== undefined) {
    return invalid([
      {
        path: unstorable || '(body)',
        message: 'must not contain U+0000 or an unpaired surrogate, which PostgreSQL cannot store',
      },
    ])
  }
  // A known type is checked once, against its own schema (which holds the envelope's); any other only as an envelope.
  const claimed = typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined
  const isKnown = typeof claimed === 'string' && KNOWN_TYPES.has(claimed)
  const parsed = isKnown ? KnownEvent.safeParse(json) : EventEnvelope.safeParse(json)
  if (!parsed.success) {
    return invalid(
      parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message })),
    )
  }
  const event = json as Record<string, unknown>
  const { id: eventId, type } = parsed.data
  if (isKnown) return { ok: true, event, text, eventId, type, known: parsed.data as KnownEvent }
  return {
    ok: true,
    event,
    text,
    eventId,
    type,
    ignored: RESERVED_TYPES.has(type) ? 'reserved_type' : 'unknown_type',
  }
}

type Visit = { value: unknown; key: string; parent: Visit | undefined }

function pathOf(visit: Visit): string {
  const keys: string[] = []
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) keys.push(at.key)
  return keys.reverse().join('.')
}

/** The dotted path of the first string (key or value) PostgreSQL text and jsonb refuse, if any. */
function unstorableStringAt(root: unknown): string | undefined {
  const bad = (text: string) => text.includes('\u0000') || LONE_SURROGATE.test(text)
  // Iterative, with parent links instead of copied paths: a body within the limit may nest thousands deep.
  const pending: Visit[] = [{ value: root, key: '', parent: undefined }]
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value } = visit
    if (typeof value === 'string') {
      if (bad(value)) return pathOf(visit)
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const child = { value: item, key, parent: visit }
        if (bad(key)) return pathOf(child)
        pending.push(child)
      }
    }
  }
  return undefined
}

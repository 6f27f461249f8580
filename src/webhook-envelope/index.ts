// The one reading of the service's webhook envelope, shared by the receiver (at the door) and the worker.
export { parseEnvelope, EVENT_ID_FIELDS, UNTYPED_EVENT, BODY_ID_PREFIX } from './webhook-envelope.js'
export type { ParsedEnvelope, EnvelopeProblem, EnvelopeRefusal } from './webhook-envelope.js'
export { EVENT_TYPE_FIELDS } from './event-type.js'
export type { IgnoredReason } from './event-type.js'
export { interpretEvent } from './interpret-event.js'
export type { InterpretedEvent, UninterpretableProblem } from './interpret-event.js'

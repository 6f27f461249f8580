// The one reading of the service's webhook envelope, shared by the receiver (at the door) and the worker.
export {
  parseEnvelope,
  interpretEvent,
  EVENT_ID_FIELDS,
  EVENT_TYPE_FIELDS,
  UNTYPED_EVENT,
  BODY_ID_PREFIX,
} from './webhook-envelope.js'
export type {
  ParsedEnvelope,
  EnvelopeProblem,
  EnvelopeRefusal,
  IgnoredReason,
  InterpretedEvent,
  UninterpretableProblem,
} from './webhook-envelope.js'

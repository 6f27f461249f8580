/**
 * Where plausible dialects put each part of a webhook delivery. The seed leaves the payload shape open
 * ("Payload shape of deliveries: not shown"), so the worker looks in every place below, in this order. A path is
 * dotted from the delivered body; `*` stands for each envelope root.
 */

/** Where the envelope itself may sit: the body, or a wrapper around it. */
export const ENVELOPE_ROOTS = ['', 'payload.', 'event.', 'body.'] as const

/** Fields that name the event type, relative to an envelope root. */
export const TYPE_FIELDS = ['type', 'eventType', 'event_type', 'event', 'kind'] as const

/** Where the event's object may sit, relative to an envelope root ('' is the envelope itself). */
export const DATA_CONTAINERS = ['data.', 'data.object.', 'object.', 'payload.', 'resource.', ''] as const

/** Fields that carry the connection id, relative to a data container. */
export const CONNECTION_ID_FIELDS = [
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
export const CONNECTION_OBJECT_ID_FIELDS = ['id'] as const

export const STATUS_FIELDS = [
  'status',
  'newStatus',
  'new_status',
  'currentStatus',
  'current_status',
  'connection.status',
  'to',
] as const
export const PREVIOUS_STATUS_FIELDS = [
  'previousStatus',
  'previous_status',
  'oldStatus',
  'old_status',
  'previous.status',
  'previous_attributes.status',
  'from',
] as const
export const ERROR_CODE_FIELDS = ['errorCode', 'error_code', 'error.code', 'connection.errorCode'] as const
export const ERROR_MESSAGE_FIELDS = [
  'errorMessage',
  'error_message',
  'error.message',
  'connection.errorMessage',
] as const

/** When the bank says the event happened, relative to an envelope root (ISO 8601, or Unix seconds). */
export const OCCURRED_AT_FIELDS = [
  'createdAt',
  'created_at',
  'occurredAt',
  'occurred_at',
  'timestamp',
  'time',
  'created',
] as const

/** Every full path for `fields` under every root and container, in lookup order. */
export function pathsOf(
  fields: readonly string[],
  containers: readonly string[] = DATA_CONTAINERS,
): string[] {
  return ENVELOPE_ROOTS.flatMap((root) =>
    containers.flatMap((container) => fields.map((field) => `${root}${container}${field}`)),
  )
}

/** The value at a dotted path, or undefined when any step is missing or not an object. */
export function valueAt(body: unknown, path: string): unknown {
  let at: unknown = body
  for (const key of path.split('.')) {
    if (typeof at !== 'object' || at === null || Array.isArray(at)) return undefined
    if (!Object.hasOwn(at, key)) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return at
}

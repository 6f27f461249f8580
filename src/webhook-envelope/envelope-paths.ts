// Where plausible dialects put each part of a webhook delivery, for the door's reading (webhook-envelope.ts) and the
// worker's (interpret-event.ts). The seed leaves the payload shape open ("Payload shape of deliveries: not shown"),
// so bankrec looks in every place listed, in order. A path is dotted from the delivered body. Pure.

/** Where the envelope itself may sit: the body, or a wrapper around it. */
export const ENVELOPE_ROOTS = ['', 'payload.', 'event.', 'body.'] as const

/** Where the event's object may sit, relative to an envelope root ('' is the envelope itself). */
export const DATA_CONTAINERS = ['data.', 'data.object.', 'object.', 'payload.', 'resource.', ''] as const

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
  // A top-level field (the receiver's lookups of the type, on every delivery) needs no split.
  if (!path.includes('.')) return fieldOf(body, path)
  let at: unknown = body
  for (const key of path.split('.')) {
    at = fieldOf(at, key)
    if (at === undefined) return undefined
  }
  return at
}

function fieldOf(at: unknown, key: string): unknown {
  if (typeof at !== 'object' || at === null || Array.isArray(at)) return undefined
  return Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key] : undefined
}

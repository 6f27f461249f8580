import { createHash } from 'node:crypto'

/**
 * A UUID-shaped id derived from its parts, so replaying the same observations yields the same id and the
 * store can make every alert idempotent by it. Version nibble 8 (RFC 9562 custom) and the RFC variant bits
 * are set so a uuid column accepts it.
 */
export function deterministicId(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\n')).digest('hex')
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16)
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `8${hex.slice(13, 16)}`,
    `${variant}${hex.slice(17, 20)}`,
    hex.slice(20, 32),
  ].join('-')
}

/** The id of a connection incident: connection id, kind and the (bank) time it opened. */
export function incidentIdFor(connectionId: string, kind: string, openedAt: string): string {
  return deterministicId('connection-incident', connectionId, kind, new Date(openedAt).toISOString())
}

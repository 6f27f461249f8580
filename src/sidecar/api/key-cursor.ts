import { SidecarApiError } from '../api-error.js'
import { mirrorFingerprint } from './mirror-cursor.js'

/**
 * Opaque keyset cursors over any text key (an exception key, an allocation id), bound to the list and filters
 * they were issued for, like the mirror's.
 */
type Payload = { k: 'key'; a: string; q: string }

const PREFIX = 'kc_'

export function listFingerprint(list: string, filters: Record<string, string | undefined>): string {
  return mirrorFingerprint(list, filters)
}

export function encodeKeyCursor(after: string, fingerprint: string): string {
  const payload: Payload = { k: 'key', a: after, q: fingerprint }
  return `${PREFIX}${Buffer.from(JSON.stringify(payload)).toString('base64url')}`
}

/** @throws SidecarApiError 400 invalid_cursor when malformed or made for another list or other filters */
export function decodeKeyCursor(raw: string, fingerprint: string): string {
  let payload: Partial<Payload> | undefined
  try {
    payload = raw.startsWith(PREFIX)
      ? (JSON.parse(Buffer.from(raw.slice(PREFIX.length), 'base64url').toString('utf8')) as Partial<Payload>)
      : undefined
  } catch {
    payload = undefined
  }
  const invalid = (message: string) =>
    new SidecarApiError(400, 'invalid_cursor', `query.cursor ${message}`, [{ path: 'query.cursor', message }])
  if (payload?.k !== 'key' || typeof payload.a !== 'string') {
    throw invalid('is malformed; pass pagination.nextCursor exactly as returned.')
  }
  if (payload.q !== fingerprint)
    throw invalid('was issued for other filters; keep them the same while paging.')
  return payload.a
}

/** The bank API's list envelope for one keyset page of up to limit + 1 rows. */
export function keyPage<Row, Item>(
  rows: readonly Row[],
  limit: number,
  keyOf: (row: Row) => string,
  fingerprint: string,
  present: (row: Row) => Item,
): { data: Item[]; pagination: { hasMore: boolean; nextCursor: string | null } } {
  const page = rows.slice(0, limit)
  const hasMore = rows.length > limit
  return {
    data: page.map(present),
    pagination: { hasMore, nextCursor: hasMore ? encodeKeyCursor(keyOf(page.at(-1)!), fingerprint) : null },
  }
}

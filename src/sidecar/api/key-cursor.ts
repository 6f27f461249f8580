import { createListCursorCodec, listCursorMessage, type ListCursorCodec } from '../../list-cursor/index.js'
import { SidecarApiError } from '../api-error.js'

export { listFingerprint } from '../../list-cursor/index.js'

/**
 * Opaque keyset cursors over any text key (an exception key, an allocation id), bound to the list and filters
 * they were issued for, like the mirror's.
 */
const keyCursors = createListCursorCodec('key', 'kc_')

export const encodeKeyCursor = keyCursors.encode

/**
 * A cursor's key, or SidecarApiError 400 invalid_cursor when it is malformed or was made for another list or other
 * filters; `keepSame` names the filters to keep while paging.
 */
export function decodeListCursor(
  codec: ListCursorCodec,
  raw: string,
  fingerprint: string,
  keepSame: string,
): string {
  const decoded = codec.decode(raw, fingerprint)
  if (decoded.ok) return decoded.after
  const message = listCursorMessage(decoded.problem, keepSame)
  throw new SidecarApiError(400, 'invalid_cursor', `query.cursor ${message}`, [
    { path: 'query.cursor', message },
  ])
}

/** @throws SidecarApiError 400 invalid_cursor when malformed or made for another list or other filters */
export function decodeKeyCursor(raw: string, fingerprint: string): string {
  return decodeListCursor(keyCursors, raw, fingerprint, 'them')
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

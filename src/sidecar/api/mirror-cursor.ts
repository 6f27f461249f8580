import { createListCursorCodec } from '../../list-cursor/index.js'
import { decodeListCursor } from './key-cursor.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Keyset cursors of the mirror API: the last id (a UUID) of the page, bound to the list and its filters. */
const mirrorCursors = createListCursorCodec('mirror', 'mc_', (id) => UUID.test(id))

/** @throws SidecarApiError 400 invalid_cursor when malformed or made for another list or other filters */
export function decodeMirrorCursor(raw: string, fingerprint: string): string {
  return decodeListCursor(mirrorCursors, raw, fingerprint, 'connectionId and accountId')
}

/**
 * The bank API's list envelope for one keyset page; `rows` holds up to limit + 1 rows, the extra one only
 * telling that more follow.
 */
export function mirrorPage<Row extends { id: string }, Item>(
  rows: readonly Row[],
  limit: number,
  fingerprint: string,
  requestId: string,
  present: (row: Row) => Item,
): {
  data: Item[]
  pagination: { hasMore: boolean; nextCursor: string | null }
  meta: { requestId: string }
} {
  const page = rows.slice(0, limit)
  const hasMore = rows.length > limit
  return {
    data: page.map(present),
    pagination: { hasMore, nextCursor: hasMore ? mirrorCursors.encode(page.at(-1)!.id, fingerprint) : null },
    meta: { requestId },
  }
}

import { createHash } from 'node:crypto'
import { ApiError } from './api-error.js'

/**
 * Opaque cursors of list endpoints: the offset into the ordered result plus a hash of the query and sort they
 * belong to (seed: a list cursor is valid only for the same query and sort order). Sync cursors are different
 * (sync-cursor.ts) and the two never decode as each other.
 */
type ListCursor = { k: 'list'; o: number; q: string }

export function queryFingerprint(query: Record<string, unknown>): string {
  const canonical = Object.keys(query)
    .filter((key) => key !== 'cursor' && key !== 'limit' && query[key] !== undefined && query[key] !== null)
    .sort()
    .map((key) => `${key}=${String(query[key])}`)
    .join('&')
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16)
}

export function encodeListCursor(offset: number, fingerprint: string): string {
  const cursor: ListCursor = { k: 'list', o: offset, q: fingerprint }
  return `lc_${Buffer.from(JSON.stringify(cursor)).toString('base64url')}`
}

/** @throws ApiError 400 invalid_cursor for a malformed cursor or one made for another query */
export function decodeListCursor(raw: string, fingerprint: string): number {
  let cursor: Partial<ListCursor> | undefined
  try {
    cursor = raw.startsWith('lc_')
      ? JSON.parse(Buffer.from(raw.slice(3), 'base64url').toString('utf8'))
      : undefined
  } catch {
    cursor = undefined
  }
  if (!cursor || cursor.k !== 'list' || !Number.isSafeInteger(cursor.o) || (cursor.o ?? -1) < 0) {
    throw new ApiError(400, 'invalid_cursor', 'The cursor is malformed; pass nextCursor exactly as returned.')
  }
  if (cursor.q !== fingerprint) {
    throw new ApiError(400, 'invalid_cursor', 'The cursor belongs to another query or sort order.')
  }
  return cursor.o!
}

/** One page of an ordered list, with the envelope's pagination part. */
export function paginate<T>(
  items: readonly T[],
  query: Record<string, unknown> & { cursor?: string | null; limit: number },
): { data: T[]; pagination: { hasMore: boolean; nextCursor: string | null } } {
  const fingerprint = queryFingerprint(query)
  const offset = query.cursor ? decodeListCursor(query.cursor, fingerprint) : 0
  const data = items.slice(offset, offset + query.limit)
  const hasMore = offset + query.limit < items.length
  return {
    data,
    pagination: { hasMore, nextCursor: hasMore ? encodeListCursor(offset + query.limit, fingerprint) : null },
  }
}

import { createHash } from 'node:crypto'
import { SidecarApiError } from '../api-error.js'

/**
 * Opaque keyset cursors of the mirror API: the last id of the page plus a fingerprint of the list and filters
 * it belongs to, so a cursor presented with other filters is refused instead of silently skipping rows.
 */
type Payload = { k: 'mirror'; a: string; q: string }

const PREFIX = 'mc_'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function mirrorFingerprint(list: string, filters: Record<string, string | undefined>): string {
  const canonical = [
    list,
    ...Object.keys(filters)
      .filter((key) => filters[key] !== undefined)
      .sort()
      .map((key) => `${key}=${filters[key]}`),
  ].join('&')
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16)
}

export function encodeMirrorCursor(afterId: string, fingerprint: string): string {
  const payload: Payload = { k: 'mirror', a: afterId, q: fingerprint }
  return `${PREFIX}${Buffer.from(JSON.stringify(payload)).toString('base64url')}`
}

function invalidCursor(message: string): SidecarApiError {
  return new SidecarApiError(400, 'invalid_cursor', `query.cursor ${message}`, [
    { path: 'query.cursor', message },
  ])
}

/** @throws SidecarApiError 400 invalid_cursor when malformed or made for another list or other filters */
export function decodeMirrorCursor(raw: string, fingerprint: string): string {
  let payload: Partial<Payload> | undefined
  try {
    payload = raw.startsWith(PREFIX)
      ? (JSON.parse(Buffer.from(raw.slice(PREFIX.length), 'base64url').toString('utf8')) as Partial<Payload>)
      : undefined
  } catch {
    payload = undefined
  }
  if (payload?.k !== 'mirror' || typeof payload.a !== 'string' || !UUID.test(payload.a)) {
    throw invalidCursor('is malformed; pass pagination.nextCursor exactly as returned.')
  }
  if (payload.q !== fingerprint) {
    throw invalidCursor(
      'was issued for other filters; keep connectionId and accountId the same while paging.',
    )
  }
  return payload.a
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
    pagination: { hasMore, nextCursor: hasMore ? encodeMirrorCursor(page.at(-1)!.id, fingerprint) : null },
    meta: { requestId },
  }
}

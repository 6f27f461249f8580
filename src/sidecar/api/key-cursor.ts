import { z } from 'zod'
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

/** Cursors over a bigint sequence (the audit log's seq), refusing any other key before the database sees it. */
const seqCursors = createListCursorCodec('key', 'kc_', (key) => /^\d{1,18}$/.test(key))

/** @throws SidecarApiError 400 invalid_cursor when malformed or made for another list or other filters */
export function decodeSeqCursor(raw: string, fingerprint: string): string {
  return decodeListCursor(seqCursors, raw, fingerprint, 'them')
}

/** Where a newest-first list stopped: the last row's created_at (PostgreSQL's text, to the microsecond) and id. */
export type TimePosition = { createdAt: string; id: string }

const TIMESTAMP_TEXT =
  /^(\d{4})-(\d{2})-(\d{2}) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/

/**
 * Whether text is a timestamptz as PostgreSQL writes it, with a real calendar day: a cursor made by hand must get a
 * 400, not reach the database's cast and fail there.
 */
function isTimestampText(text: string): boolean {
  const match = TIMESTAMP_TEXT.exec(text)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

const TimePositionKey = z.tuple([z.string().refine(isTimestampText), z.string().min(1)])

function parseTimePosition(key: string): TimePosition | undefined {
  let json: unknown
  try {
    json = JSON.parse(key)
  } catch {
    return undefined
  }
  const parsed = TimePositionKey.safeParse(json)
  return parsed.success ? { createdAt: parsed.data[0], id: parsed.data[1] } : undefined
}

/** The key cursors' format, refusing a key that is not a [createdAt, id] position. */
const timeCursors = createListCursorCodec('key', 'kc_', (key) => parseTimePosition(key) !== undefined)

/** The key a newest-first list's cursor carries, for keyPage. */
export function timePositionKey(position: TimePosition): string {
  return JSON.stringify([position.createdAt, position.id])
}

/** @throws SidecarApiError 400 invalid_cursor when malformed or made for another list or other filters */
export function decodeTimeCursor(raw: string, fingerprint: string): TimePosition {
  return parseTimePosition(decodeListCursor(timeCursors, raw, fingerprint, 'them'))!
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

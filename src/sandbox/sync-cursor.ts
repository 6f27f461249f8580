import { createHmac, timingSafeEqual } from 'node:crypto'
import { ApiError } from './api-error.js'

/**
 * Opaque, tamper-evident cursors of GET /v1/transactions/sync: `sc_<payload>.<mac>`, both base64url. The payload
 * names the stream position, the stream-defining filters, the organization and the virtual time of issue; the
 * MAC (HMAC-SHA256, truncated to 128 bits) is keyed per sandbox, so an edited or invented cursor is rejected.
 * List cursors (`lc_`, list-cursor.ts) never decode here and these never decode there.
 */
export type SyncCursor = {
  /** Sync position: the stream continues with changes after it. */
  seq: number
  orgId: string
  accountId: string | null
  connectionId: string | null
  issuedAt: Date
}

/** What the request that presents a cursor must match. */
export type SyncStream = { orgId: string; accountId: string | null; connectionId: string | null }

/** Seed, Limits: the sync cursor lifetime. */
export const SYNC_CURSOR_LIFETIME_MS = 90 * 86_400_000

const PREFIX = 'sc_'
const MAC_BYTES = 16

type Payload = { k: 'sync'; s: number; o: string; a: string | null; c: string | null; t: number }

/** The per-sandbox MAC key, derived from the seed so a restart with the same seed accepts its old cursors. */
export function syncCursorKey(seed: number): Buffer {
  return createHmac('sha256', 'bankrec sandbox sync cursor').update(String(seed)).digest()
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES)
}

export function encodeSyncCursor(cursor: SyncCursor, key: Buffer): string {
  const payload: Payload = {
    k: 'sync',
    s: cursor.seq,
    o: cursor.orgId,
    a: cursor.accountId,
    c: cursor.connectionId,
    t: cursor.issuedAt.getTime(),
  }
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${PREFIX}${body}.${mac(key, body).toString('base64url')}`
}

function malformed(): ApiError {
  return new ApiError(
    400,
    'invalid_cursor',
    'The sync cursor is malformed; pass nextCursor exactly as returned, or start a new stream without a cursor.',
  )
}

function parsePayload(raw: string, key: Buffer): Payload {
  if (!raw.startsWith(PREFIX)) throw malformed()
  const [body, signature, ...rest] = raw.slice(PREFIX.length).split('.')
  if (!body || !signature || rest.length > 0) throw malformed()
  const given = Buffer.from(signature, 'base64url')
  // Buffer.from ignores stray characters; re-encoding catches any signature that is not canonical base64url.
  if (given.toString('base64url') !== signature || given.length !== MAC_BYTES) throw malformed()
  if (!timingSafeEqual(given, mac(key, body))) throw malformed()
  let payload: Partial<Payload>
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<Payload>
  } catch {
    throw malformed()
  }
  const nullableString = (value: unknown) => value === null || typeof value === 'string'
  if (
    payload?.k !== 'sync' ||
    !Number.isSafeInteger(payload.s) ||
    payload.s! < 0 ||
    typeof payload.o !== 'string' ||
    !nullableString(payload.a) ||
    !nullableString(payload.c) ||
    !Number.isSafeInteger(payload.t)
  ) {
    throw malformed()
  }
  return payload as Payload
}

/**
 * Decodes a cursor presented for `stream` at virtual time `now`.
 * @throws ApiError 400 invalid_cursor when it is malformed, edited, another organization's, or made for other
 *   accountId/connectionId filters
 * @throws ApiError 410 cursor_expired when it was issued more than 90 days before `now`
 */
export function decodeSyncCursor(raw: string, key: Buffer, stream: SyncStream, now: Date): SyncCursor {
  const payload = parsePayload(raw, key)
  if (payload.o !== stream.orgId) throw malformed()
  if (payload.a !== stream.accountId || payload.c !== stream.connectionId) {
    throw new ApiError(
      400,
      'invalid_cursor',
      'The sync cursor was issued for other accountId/connectionId filters; they must stay the same for the life of a cursor stream.',
    )
  }
  if (now.getTime() - payload.t > SYNC_CURSOR_LIFETIME_MS) {
    throw new ApiError(
      410,
      'cursor_expired',
      'The sync cursor is older than 90 days; rebootstrap: call sync without a cursor, then backfill with the list endpoint.',
    )
  }
  return {
    seq: payload.s,
    orgId: payload.o,
    accountId: payload.a,
    connectionId: payload.c,
    issuedAt: new Date(payload.t),
  }
}

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ApiError } from './api-error.js'
import { decodeListCursor, encodeListCursor } from './list-cursor.js'
import {
  SYNC_CURSOR_LIFETIME_MS,
  decodeSyncCursor,
  encodeSyncCursor,
  syncCursorKey,
  type SyncCursor,
} from './sync-cursor.js'

const key = syncCursorKey(42)
const issuedAt = new Date('2026-03-02T09:00:00Z')

const cursorArb: fc.Arbitrary<SyncCursor> = fc.record({
  seq: fc.nat(),
  orgId: fc.string({ minLength: 1 }),
  accountId: fc.option(fc.uuid(), { nil: null }),
  connectionId: fc.option(fc.uuid(), { nil: null }),
  issuedAt: fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms)),
})

function codeOf(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    if (error instanceof ApiError) return error.code
    throw error
  }
  return undefined
}

function statusOf(run: () => unknown): number | undefined {
  try {
    run()
  } catch (error) {
    if (error instanceof ApiError) return error.status
    throw error
  }
  return undefined
}

const streamOf = (c: SyncCursor) => ({ orgId: c.orgId, accountId: c.accountId, connectionId: c.connectionId })

describe('sync cursor codec', () => {
  it('decodes every cursor it encodes to the same position, filters, organization and issue time', () => {
    fc.assert(
      fc.property(cursorArb, (cursor) => {
        const decoded = decodeSyncCursor(
          encodeSyncCursor(cursor, key),
          key,
          streamOf(cursor),
          cursor.issuedAt,
        )
        expect(decoded).toEqual(cursor)
      }),
    )
  })

  it('is opaque: the cursor text is prefixed sc_ and does not show the organization in clear', () => {
    const raw = encodeSyncCursor(
      { seq: 7, orgId: 'org_main', accountId: null, connectionId: null, issuedAt },
      key,
    )
    expect(raw.startsWith('sc_')).toBe(true)
    expect(raw).not.toContain('org_main')
  })

  it('invalid_cursor: any edit of one character is rejected', () => {
    fc.assert(
      fc.property(
        cursorArb,
        fc.nat(),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'),
        (cursor, at, replacement) => {
          const raw = encodeSyncCursor(cursor, key)
          const i = at % raw.length
          fc.pre(raw[i] !== replacement)
          const edited = raw.slice(0, i) + replacement + raw.slice(i + 1)
          expect(codeOf(() => decodeSyncCursor(edited, key, streamOf(cursor), cursor.issuedAt))).toBe(
            'invalid_cursor',
          )
        },
      ),
    )
  })

  it('invalid_cursor: arbitrary text is rejected with 400', () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const stream = { orgId: 'org_main', accountId: null, connectionId: null }
        expect(statusOf(() => decodeSyncCursor(raw, key, stream, issuedAt))).toBe(400)
        expect(codeOf(() => decodeSyncCursor(raw, key, stream, issuedAt))).toBe('invalid_cursor')
      }),
    )
  })

  it('invalid_cursor: a cursor signed with another sandbox key is rejected', () => {
    fc.assert(
      fc.property(
        cursorArb,
        fc.integer().filter((seed) => seed !== 42),
        (cursor, seed) => {
          const raw = encodeSyncCursor(cursor, syncCursorKey(seed))
          expect(codeOf(() => decodeSyncCursor(raw, key, streamOf(cursor), cursor.issuedAt))).toBe(
            'invalid_cursor',
          )
        },
      ),
    )
  })

  it('invalid_cursor: a cursor used with different accountId or connectionId filters is rejected', () => {
    fc.assert(
      fc.property(
        cursorArb,
        fc.option(fc.uuid(), { nil: null }),
        fc.option(fc.uuid(), { nil: null }),
        (cursor, accountId, connectionId) => {
          fc.pre(accountId !== cursor.accountId || connectionId !== cursor.connectionId)
          const raw = encodeSyncCursor(cursor, key)
          const stream = { orgId: cursor.orgId, accountId, connectionId }
          expect(codeOf(() => decodeSyncCursor(raw, key, stream, cursor.issuedAt))).toBe('invalid_cursor')
        },
      ),
    )
  })

  it("invalid_cursor: another organization's cursor is rejected", () => {
    fc.assert(
      fc.property(cursorArb, fc.string({ minLength: 1 }), (cursor, orgId) => {
        fc.pre(orgId !== cursor.orgId)
        const raw = encodeSyncCursor(cursor, key)
        const stream = { ...streamOf(cursor), orgId }
        expect(codeOf(() => decodeSyncCursor(raw, key, stream, cursor.issuedAt))).toBe('invalid_cursor')
      }),
    )
  })

  it('cursor_expired: valid up to exactly 90 days after issue, expired (410) one millisecond later', () => {
    fc.assert(
      fc.property(cursorArb, fc.integer({ min: 1, max: 10 * SYNC_CURSOR_LIFETIME_MS }), (cursor, lateMs) => {
        const raw = encodeSyncCursor(cursor, key)
        const at90Days = new Date(cursor.issuedAt.getTime() + SYNC_CURSOR_LIFETIME_MS)
        expect(decodeSyncCursor(raw, key, streamOf(cursor), at90Days).seq).toBe(cursor.seq)
        const later = new Date(at90Days.getTime() + lateMs)
        expect(statusOf(() => decodeSyncCursor(raw, key, streamOf(cursor), later))).toBe(410)
        expect(codeOf(() => decodeSyncCursor(raw, key, streamOf(cursor), later))).toBe('cursor_expired')
      }),
    )
  })

  it('list and sync cursors are never interchangeable: each rejects the other with invalid_cursor', () => {
    fc.assert(
      fc.property(cursorArb, fc.nat(), fc.string(), (cursor, offset, fingerprint) => {
        const sync = encodeSyncCursor(cursor, key)
        const list = encodeListCursor(offset, fingerprint)
        expect(codeOf(() => decodeListCursor(sync, fingerprint))).toBe('invalid_cursor')
        expect(codeOf(() => decodeSyncCursor(list, key, streamOf(cursor), cursor.issuedAt))).toBe(
          'invalid_cursor',
        )
      }),
    )
  })
})

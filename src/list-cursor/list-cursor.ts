import { createHash } from 'node:crypto'

/**
 * Opaque keyset cursors: the last key of a page plus a fingerprint of the list and filters it was issued for, so a
 * cursor presented with other filters is refused instead of silently skipping rows. Pure: callers turn a problem
 * into their own error.
 */
export type ListCursorProblem = 'malformed' | 'other_filters'

export type ListCursorCodec = {
  encode(after: string, fingerprint: string): string
  decode(
    raw: string,
    fingerprint: string,
  ): { ok: true; after: string } | { ok: false; problem: ListCursorProblem }
}

type Payload = { k: string; a: string; q: string }

/** A fingerprint of a list and the filters that are set, independent of their order. */
export function listFingerprint(list: string, filters: Record<string, string | undefined>): string {
  const canonical = [
    list,
    ...Object.keys(filters)
      .filter((key) => filters[key] !== undefined)
      .sort()
      .map((key) => `${key}=${filters[key]}`),
  ].join('&')
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16)
}

/**
 * Cursors of one kind: `prefix` and `kind` tell them from another list's, `isKey` refuses keys that list never
 * issues.
 */
export function createListCursorCodec(
  kind: string,
  prefix: string,
  isKey: (after: string) => boolean = () => true,
): ListCursorCodec {
  return {
    encode(after, fingerprint) {
      const payload: Payload = { k: kind, a: after, q: fingerprint }
      return `${prefix}${Buffer.from(JSON.stringify(payload)).toString('base64url')}`
    },
    decode(raw, fingerprint) {
      let payload: Partial<Payload> | undefined
      try {
        payload = raw.startsWith(prefix)
          ? (JSON.parse(
              Buffer.from(raw.slice(prefix.length), 'base64url').toString('utf8'),
            ) as Partial<Payload>)
          : undefined
      } catch {
        payload = undefined
      }
      if (payload?.k !== kind || typeof payload.a !== 'string' || !isKey(payload.a))
        return { ok: false, problem: 'malformed' }
      if (payload.q !== fingerprint) return { ok: false, problem: 'other_filters' }
      return { ok: true, after: payload.a }
    },
  }
}

/** The message for a refused cursor; `keepSame` names the filters to keep while paging. */
export function listCursorMessage(problem: ListCursorProblem, keepSame: string): string {
  return problem === 'malformed'
    ? 'is malformed; pass pagination.nextCursor exactly as returned.'
    : `was issued for other filters; keep ${keepSame} the same while paging.`
}

import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/**
 * Whether a presented KIT_API_TOKEN is the expected one, in time that depends on neither: both are hashed to
 * 32 bytes and compared once with timingSafeEqual, so a wrong length is not told apart early either.
 */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  const same = timingSafeEqual(digest(given ?? ''), digest(expected))
  return same && given !== undefined && expected.length > 0
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerOf(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1]
}

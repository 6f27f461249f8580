import { createHash, randomBytes } from 'node:crypto'

/** A prefix that makes a leaked user token easy to recognise (secret scanners, logs). */
export const USER_TOKEN_PREFIX = 'bku_'

/** A new user token: 256 random bits, so its SHA-256 is all the store needs to keep. */
export function newUserToken(): string {
  return `${USER_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`
}

/**
 * What the store keeps of a token: its SHA-256 (hex). A token is 256 random bits, so no salt or slow hash is
 * needed (nothing to guess from the digest), and a token is found by its digest in one indexed read.
 */
export function userTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

import { createHmac } from 'node:crypto'
import type { Kysely } from 'kysely'
import { findActiveUser, type Database, type UserRow } from '../../store/index.js'
import { builtinAdmin, userActor, userTokenHash, USER_TOKEN_PREFIX, type Actor } from '../../users/index.js'
import { tokenMatches } from '../token-matches.js'

export type AuthenticatorDeps = {
  db: Kysely<Database>
  /**
   * KIT_API_TOKEN (or sandbox mode's generated one): the built-in admin's token and the sessions' key; empty
   * (a CLI without it): only user tokens are known, and no session.
   */
  apiToken: string
  /** KIT_API_TOKEN_NAME. */
  builtinName: string
}

/** Who presents a token or a session cookie. */
export type Authenticator = {
  /** The actor of a Bearer token: KIT_API_TOKEN (the built-in admin) or an active user's token. */
  bearer(token: string | undefined): Promise<Actor | undefined>
  /** The actor of a session cookie's value, while their token is valid. */
  session(value: string | undefined): Promise<Actor | undefined>
  /** The session cookie value for the holder of `token`, or undefined when the token is nobody's. */
  signIn(token: string): Promise<{ actor: Actor; session: string } | undefined>
}

const USER_SESSION = /^u\.(\d{1,18})\.([\w-]{43})$/

/**
 * The built-in admin's session value: derived from KIT_API_TOKEN, never the token, so a leaked cookie is no
 * Bearer token and a new KIT_API_TOKEN ends every session.
 */
export function builtinSessionValue(apiToken: string): string {
  return createHmac('sha256', apiToken).update('bankrec dashboard session v1').digest('base64url')
}

/** A user's session value: the user's id and a MAC over it and their token's hash, keyed by KIT_API_TOKEN. */
function userSessionMac(apiToken: string, user: Pick<UserRow, 'id' | 'token_hash'>): string {
  return createHmac('sha256', apiToken)
    .update(`bankrec dashboard session v1|user|${user.id}|${user.token_hash}`)
    .digest('base64url')
}

export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const admin = builtinAdmin(deps.builtinName)
  /** KIT_API_TOKEN's holder, or the active user whose token this is. */
  const holder = async (token: string | undefined): Promise<'builtin' | UserRow | undefined> => {
    if (token === undefined) return undefined
    if (tokenMatches(token, deps.apiToken)) return 'builtin'
    // A user token is found by its SHA-256 in one indexed read (the digest of a guess tells nothing of any
    // token), and the stored digest is compared with it in constant time all the same.
    if (!token.startsWith(USER_TOKEN_PREFIX)) return undefined
    const hash = userTokenHash(token)
    const row = await findActiveUser(deps.db, { tokenHash: hash })
    return row && tokenMatches(hash, row.token_hash) ? row : undefined
  }
  return {
    async bearer(token) {
      const found = await holder(token)
      return found === 'builtin' ? admin : found && userActor(found)
    },
    async session(value) {
      if (deps.apiToken.length === 0 || value === undefined) return undefined
      const user = USER_SESSION.exec(value)
      if (!user) return tokenMatches(value, builtinSessionValue(deps.apiToken)) ? admin : undefined
      const row = await findActiveUser(deps.db, { id: user[1]! })
      if (!row || !tokenMatches(user[2], userSessionMac(deps.apiToken, row))) return undefined
      return userActor(row)
    },
    async signIn(token) {
      const found = await holder(token)
      if (found === 'builtin') return { actor: admin, session: builtinSessionValue(deps.apiToken) }
      return (
        found && { actor: userActor(found), session: `u.${found.id}.${userSessionMac(deps.apiToken, found)}` }
      )
    },
  }
}

import type { Request } from 'express'
import type { Kysely } from 'kysely'
import { Counter, type Registry } from 'prom-client'
import type { Clock } from '../../clock/index.js'
import type { Logger } from '../../observability/index.js'
import type { Database } from '../../store/index.js'
import type { Actor } from '../../users/index.js'
import { bearerOf } from '../token-matches.js'
import { createAuthenticator } from './authenticator.js'
import { createFailureThrottle } from './failure-throttle.js'
import { sessionCookieOf } from './session-cookie.js'

/** How a request proved who it is: an `Authorization: Bearer` header or the dashboard's session cookie. */
export type Identity = { actor: Actor; via: 'bearer' | 'session' }

/** Why a request is not let in: no or a wrong token (401), or too many wrong ones from its client (429). */
export type AuthRefusal = {
  refused: true
  status: 401 | 429
  code: 'unauthorized' | 'too_many_failed_attempts'
  message: string
  /** With 429: when the client may try again. */
  retryAfterSeconds?: number
}

export type SidecarAuthDeps = {
  db: Kysely<Database>
  /** KIT_API_TOKEN or sandbox mode's generated token: the built-in admin's, and the key of every session. */
  apiToken: string
  builtinName: string
  clock: Clock
  logger: Logger
  registry: Registry
  /** AUTH_FAILURE_BURST and AUTH_FAILURE_REFILL_SECONDS. */
  failureBurst: number
  failureRefillSeconds: number
}

/** Authentication of the API, the dashboard and the queue board, in one place. */
export type SidecarAuth = {
  /**
   * The caller: the Bearer header's holder when one is sent (a wrong token counts as a failed attempt), else,
   * with `cookie`, the session cookie's (a stale cookie is no attempt: it is the browser's, not a guess).
   * Undefined when nothing was presented.
   */
  identify(req: Request, options: { cookie: boolean }): Promise<Identity | AuthRefusal | undefined>
  /** The dashboard's sign-in form: the token's holder and their session value, counted like a Bearer token. */
  signIn(req: Request, token: string): Promise<{ actor: Actor; session: string } | AuthRefusal>
}

/** No token, or one that is nobody's. */
export const UNAUTHORIZED: AuthRefusal = {
  refused: true,
  status: 401,
  code: 'unauthorized',
  message: 'Send KIT_API_TOKEN or a user token (bankrec users add) as Authorization: Bearer <token>.',
}

export function isRefusal(value: unknown): value is AuthRefusal {
  return typeof value === 'object' && value !== null && (value as AuthRefusal).refused === true
}

/**
 * Every failed token attempt (a Bearer header or the sign-in form whose token is nobody's) takes a token from
 * its client's bucket and is logged at warn with the client, the path and the request id (never what was
 * presented); a client whose bucket is empty is answered 429 before its token is looked at, so guessing is
 * slowed to one try per AUTH_FAILURE_REFILL_SECONDS.
 */
export function createSidecarAuth(deps: SidecarAuthDeps): SidecarAuth {
  const authenticator = createAuthenticator(deps)
  const throttle = createFailureThrottle({
    burst: deps.failureBurst,
    refillMs: deps.failureRefillSeconds * 1000,
    clock: deps.clock,
  })
  const failures = new Counter({
    name: 'bankrec_auth_failures_total',
    help: 'Token attempts refused: a wrong token (refused) or a client over its failed-attempt budget (throttled)',
    labelNames: ['via', 'outcome'],
    registers: [deps.registry],
  })

  const attempt = async <T>(
    req: Request,
    via: 'bearer' | 'signin',
    check: () => Promise<T | undefined>,
  ): Promise<T | AuthRefusal> => {
    const client = req.ip ?? req.socket.remoteAddress ?? 'unknown'
    const where = { client, via, path: req.baseUrl + req.path, requestId: req.res?.locals.requestId }
    const waitMs = throttle.retryAfterMs(client)
    if (waitMs > 0) {
      failures.inc({ via, outcome: 'throttled' })
      const retryAfterSeconds = Math.ceil(waitMs / 1000)
      deps.logger.warn({ ...where, retryAfterSeconds }, 'token attempt refused: too many failed attempts')
      return {
        refused: true,
        status: 429,
        code: 'too_many_failed_attempts',
        message: `Too many wrong tokens from this client; try again in ${retryAfterSeconds} s.`,
        retryAfterSeconds,
      }
    }
    const found = await check()
    if (found) return found
    throttle.fail(client)
    failures.inc({ via, outcome: 'refused' })
    deps.logger.warn(where, 'token attempt refused: the token is nobody’s')
    return UNAUTHORIZED
  }

  return {
    async identify(req, options) {
      const token = bearerOf(req.headers.authorization)
      if (token !== undefined) {
        const actor = await attempt(req, 'bearer', () => authenticator.bearer(token))
        return isRefusal(actor) ? actor : { actor, via: 'bearer' }
      }
      if (!options.cookie) return undefined
      const actor = await authenticator.session(sessionCookieOf(req))
      return actor && { actor, via: 'session' }
    },
    async signIn(req, token) {
      if (token.length === 0) return UNAUTHORIZED
      return attempt(req, 'signin', () => authenticator.signIn(token))
    },
  }
}

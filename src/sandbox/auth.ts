import type { NextFunction, Request, Response } from 'express'
import { ApiError } from './api-error.js'
import type { SandboxContext } from './context.js'
import type { ApiKeyRecord, Scope } from './state.js'

export type Caller = { orgId: string; scopes: ReadonlySet<Scope>; environment: 'test' | 'live' }

/** The authenticated caller of a /v1 request. */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined
  if (!caller) throw new Error('authenticate() must run before the route')
  return caller
}

/** Seed, Authentication: every endpoint takes Authorization: Bearer <API_KEY>. */
export function authenticate(ctx: SandboxContext) {
  return function authenticateRequest(req: Request, res: Response, next: NextFunction) {
    const header = req.headers.authorization
    if (!header) {
      return next(
        new ApiError(401, 'authentication_required', 'Send the API key as Authorization: Bearer <API_KEY>.'),
      )
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    const record: ApiKeyRecord | undefined = match ? ctx.state.apiKeys.get(match[1]!) : undefined
    if (!record) return next(new ApiError(401, 'invalid_api_key', 'The API key is not valid.'))
    if (record.expiresAt && record.expiresAt.getTime() <= ctx.clock.now().getTime()) {
      return next(
        new ApiError(401, 'api_key_expired', 'The API key has expired; create a new one in the console.'),
      )
    }
    res.locals.caller = {
      orgId: record.orgId,
      scopes: new Set(record.scopes),
      environment: record.environment,
    }
    next()
  }
}

export function requireScope(scope: Scope) {
  return function requireScopeForRoute(_req: Request, res: Response, next: NextFunction) {
    if (!callerOf(res).scopes.has(scope)) {
      return next(new ApiError(403, 'insufficient_scope', `This API key lacks the ${scope} scope.`))
    }
    next()
  }
}

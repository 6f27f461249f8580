import type { RequestHandler, Response } from 'express'
import { roleAllows, type Actor, type Role } from '../../users/index.js'
import { SidecarApiError } from '../api-error.js'
import { isRefusal, UNAUTHORIZED, type AuthRefusal, type Identity, type SidecarAuth } from './sidecar-auth.js'

/** The identity a guard put on the response: who acts in this request. */
export function identityOf(res: Response): Identity {
  const identity = res.locals.identity as Identity | undefined
  if (!identity)
    throw new Error('No identity on this request: mount requireActor (or the dashboard guard) first.')
  return identity
}

export function actorOf(res: Response): Actor {
  return identityOf(res).actor
}

/** An API error for a refusal; a 429 carries Retry-After. */
export function refusalError(res: Response, refusal: AuthRefusal): SidecarApiError {
  if (refusal.retryAfterSeconds !== undefined) res.setHeader('retry-after', String(refusal.retryAfterSeconds))
  return new SidecarApiError(refusal.status, refusal.code, refusal.message)
}

/** Every /api request: a Bearer token of the built-in admin or of a user; the actor goes on `res.locals`. */
export function requireActor(auth: SidecarAuth): RequestHandler {
  return (req, res, next) => {
    auth.identify(req, { cookie: false }).then((identity) => {
      if (!identity) return next(refusalError(res, UNAUTHORIZED))
      if (isRefusal(identity)) return next(refusalError(res, identity))
      res.locals.identity = identity
      next()
    }, next)
  }
}

/** Why an actor may not: the role needed and theirs. */
export function forbiddenMessage(actor: Actor, role: Role): string {
  return `This needs the ${role} role; ${actor.name} is a ${actor.role}.`
}

/** A route for `role` and above (roles.ts): anyone else gets 403 naming the role needed. */
export function requireRole(role: Role): RequestHandler {
  return (_req, res, next) => {
    const { actor } = identityOf(res)
    if (roleAllows(actor.role, role)) return next()
    next(new SidecarApiError(403, 'forbidden', forbiddenMessage(actor, role)))
  }
}

import type { RequestHandler } from 'express'
import { SidecarApiError } from '../api-error.js'
import { bearerOf, tokenMatches } from '../token-matches.js'

/** Bearer KIT_API_TOKEN on every /api request, compared in constant time. */
export function requireApiToken(token: string): RequestHandler {
  return (req, _res, next) => {
    if (!tokenMatches(bearerOf(req.headers.authorization), token)) {
      return next(
        new SidecarApiError(401, 'unauthorized', 'Send KIT_API_TOKEN as Authorization: Bearer <token>.'),
      )
    }
    next()
  }
}

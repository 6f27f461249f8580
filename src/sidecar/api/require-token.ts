import { timingSafeEqual } from 'node:crypto'
import type { RequestHandler } from 'express'
import { SidecarApiError } from '../api-error.js'

/** Bearer KIT_API_TOKEN on every /api request, compared in constant time. */
export function requireApiToken(token: string): RequestHandler {
  const expected = Buffer.from(token)
  return (req, _res, next) => {
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')
    const given = Buffer.from(match?.[1] ?? '')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return next(
        new SidecarApiError(401, 'unauthorized', 'Send KIT_API_TOKEN as Authorization: Bearer <token>.'),
      )
    }
    next()
  }
}

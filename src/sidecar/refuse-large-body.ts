import type { RequestHandler } from 'express'
import { SidecarApiError } from './api-error.js'

/**
 * Answers 413 at once when the declared Content-Length is over the limit, and closes the connection after the
 * answer: body-parser would otherwise read the whole body to its end before refusing it.
 */
export function refuseLargeBody(limitBytes: number, appliesTo: readonly string[]): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.headers['content-length'] ?? 0)
    if (!(declared > limitBytes) || !req.is(appliesTo as string[])) return next()
    res.setHeader('connection', 'close')
    next(
      new SidecarApiError(
        413,
        'payload_too_large',
        `The request body is larger than the ${limitBytes}-byte limit.`,
      ),
    )
  }
}

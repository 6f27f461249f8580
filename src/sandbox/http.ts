import { randomUUID } from 'node:crypto'
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express'
import { ApiError } from './api-error.js'

/** Assigns every request an id, returned in the Request-Id header and in every body's meta or error. */
export const assignRequestId: RequestHandler = (_req, res, next) => {
  const requestId = `req_${randomUUID().replaceAll('-', '')}`
  res.locals.requestId = requestId
  res.setHeader('Request-Id', requestId)
  next()
}

export function requestIdOf(res: Response): string {
  return String(res.locals.requestId ?? '')
}

/** The meta object every successful body carries. */
export function metaOf(res: Response): { requestId: string } {
  return { requestId: requestIdOf(res) }
}

/** Wraps a route so a thrown ApiError (sync or async) reaches the error handler. */
export function route(handler: (req: Request, res: Response) => unknown): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    try {
      const result = handler(req, res)
      if (result instanceof Promise) result.catch(next)
    } catch (error) {
      next(error)
    }
  }
}

export const answerUnknownRoute: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, 'not_found', `No endpoint ${req.method} ${req.path}.`))
}

/** One place that turns errors into `{ error: { code, message, requestId, details? } }`. */
export const answerError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  const apiError =
    error instanceof ApiError
      ? error
      : isBodyParserError(error)
        ? new ApiError(400, 'validation_error', `The request body is not valid JSON: ${error.message}`, [
            { path: 'body', message: 'malformed JSON' },
          ])
        : new ApiError(500, 'internal_error', 'The sandbox failed to handle the request.')
  if (apiError.status === 500 && !(error instanceof ApiError)) console.error(error)
  for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value)
  res.status(apiError.status).json({
    error: {
      code: apiError.code,
      message: apiError.message,
      requestId: requestIdOf(res),
      ...(apiError.details ? { details: apiError.details } : {}),
    },
  })
}

function isBodyParserError(error: unknown): error is Error & { type: string } {
  return error instanceof Error && typeof (error as { type?: unknown }).type === 'string'
}

import { randomUUID } from 'node:crypto'
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express'
import { issueDetails } from '../api-client/index.js'
import type { z } from 'zod'

export type ApiErrorDetail = { path: string; message: string }

/** An error the sidecar's HTTP API answers with `{ error: { code, message, requestId, details? } }`. */
export class SidecarApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ApiErrorDetail[],
  ) {
    super(message)
    this.name = 'SidecarApiError'
  }
}

export function parseRequest<T extends z.ZodType>(
  schema: T,
  value: unknown,
  where: 'query' | 'body' | 'params',
): z.output<T> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const details = issueDetails(result.error, where)
  throw new SidecarApiError(
    400,
    'validation_error',
    details.map((d) => `${d.path} ${d.message}`).join('; '),
    details,
  )
}

export const assignRequestId: RequestHandler = (req, res, next) => {
  const incoming = req.headers['x-request-id']
  const requestId =
    typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : `req_${randomUUID()}`
  res.locals.requestId = requestId
  res.setHeader('Request-Id', requestId)
  next()
}

/** Wraps an async route so its rejection reaches the error handler. */
export function handle(fn: (req: Request, res: Response) => Promise<unknown> | unknown): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    Promise.resolve()
      .then(() => fn(req, res))
      .catch(next)
  }
}

export function answerApiError(onUnexpected: (error: unknown) => void): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const known =
      error instanceof SidecarApiError
        ? error
        : isBodyParserError(error)
          ? // The parser's message quotes the body, which may hold a password: never echo it.
            new SidecarApiError(
              error.status ?? 400,
              error.status === 413 ? 'payload_too_large' : 'validation_error',
              error.status === 413 ? 'The request body is too large.' : 'The request body is not valid JSON.',
            )
          : undefined
    if (!known) onUnexpected(error)
    const answer =
      known ??
      new SidecarApiError(500, 'internal_error', 'bankrec failed to handle the request; see its log.')
    res.status(answer.status).json({
      error: {
        code: answer.code,
        message: answer.message,
        requestId: String(res.locals.requestId ?? ''),
        ...(answer.details ? { details: answer.details } : {}),
      },
    })
  }
}

function isBodyParserError(error: unknown): error is Error & { status?: number; type: string } {
  return error instanceof Error && typeof (error as { type?: unknown }).type === 'string'
}

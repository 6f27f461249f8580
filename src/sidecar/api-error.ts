import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express'
import { BankApiError, issueDetails, ValidationError } from '../api-client/index.js'
import { DomainError, type DomainErrorKind } from '../errors/index.js'
import { requestIdFrom } from '../observability/index.js'
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
  const requestId = requestIdFrom(req.headers['x-request-id'])
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

/** The one map from a domain refusal to an HTTP status. */
const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  unavailable: 502,
}

/** The HTTP status of a domain refusal. */
export function statusOf(error: DomainError): number {
  return STATUS_OF_KIND[error.kind]
}

/**
 * Every error the API answers, as its answer: the API's own, a domain module's refusal, the bank's refusal, a body
 * the parser refused; `undefined` for anything else (a bug, answered 500).
 */
export function apiErrorOf(error: unknown): SidecarApiError | undefined {
  if (error instanceof SidecarApiError) return error
  if (error instanceof DomainError) {
    return new SidecarApiError(statusOf(error), error.code, error.message, error.details)
  }
  if (error instanceof BankApiError) return bankRefusalAnswer(error)
  if (isBodyParserError(error)) return bodyParserAnswer(error)
  return undefined
}

export function answerApiError(onUnexpected: (error: unknown) => void): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const known = apiErrorOf(error)
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

/**
 * The bank's refusal as this API's error: what the caller can fix (400, 404, 409, 422, 429) keeps the bank's
 * status and code; the bank refusing bankrec's own key or failing is a 502, since the caller cannot fix it.
 */
function bankRefusalAnswer(error: BankApiError): SidecarApiError {
  if (error instanceof ValidationError) {
    return new SidecarApiError(400, 'validation_error', error.message, error.details)
  }
  const status = error.status
  if (status === 400 || status === 404 || status === 409 || status === 422 || status === 429) {
    return new SidecarApiError(
      status,
      error.code,
      `The bank refused the request: ${error.message}`,
      error.details,
    )
  }
  if (status === 401 || status === 403) {
    return new SidecarApiError(
      502,
      'bank_rejected_api_key',
      `The bank refused bankrec's API key (${error.code}).`,
    )
  }
  return new SidecarApiError(
    502,
    'bank_unavailable',
    `The bank did not answer usably (${error.code}); retry later.`,
  )
}

type BodyParserError = Error & { status?: number; type?: string; code?: string; limit?: number }

/**
 * body-parser's errors carry a `type`; a body that does not inflate (garbage under Content-Encoding: deflate or
 * gzip) reaches us as zlib's error with only a 4xx status.
 */
function isBodyParserError(error: unknown): error is BodyParserError {
  if (!(error instanceof Error)) return false
  const { type, status, code } = error as BodyParserError
  return typeof type === 'string' || (status === 400 && typeof code === 'string' && code.startsWith('Z_'))
}

/** The parser's message quotes the body, which may hold a password: never echo it. */
function bodyParserAnswer(error: BodyParserError): SidecarApiError {
  if (error.status === 413) {
    const limit = typeof error.limit === 'number' ? ` than the ${error.limit}-byte limit` : ''
    return new SidecarApiError(413, 'payload_too_large', `The request body is larger${limit}.`)
  }
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new SidecarApiError(
      415,
      'unsupported_encoding',
      'The request body is in an encoding bankrec does not read: send UTF-8, plain or with Content-Encoding gzip or deflate.',
    )
  }
  if (error.code?.startsWith('Z_')) {
    return new SidecarApiError(
      400,
      'invalid_encoding',
      'The request body does not match its Content-Encoding.',
    )
  }
  return new SidecarApiError(error.status ?? 400, 'validation_error', 'The request body is not valid JSON.')
}

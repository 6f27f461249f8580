import { issueDetails, type ErrorCode } from '../api-client/index.js'
import type { z } from 'zod'

export type ApiErrorDetail = { path: string; message: string }

/** An error the sandbox answers with: `{ error: { code, message, requestId, details? } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | string,
    message: string,
    readonly details?: ApiErrorDetail[],
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError(404, 'not_found', `No ${what} with id ${JSON.stringify(id)}.`)
}

/** Parses input with a zod schema; every problem becomes one detail of a 400 validation_error. */
export function parseInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  where: 'query' | 'body' | 'header',
): z.output<T> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const details = issueDetails(result.error, where)
  throw new ApiError(
    400,
    'validation_error',
    `Invalid ${where}: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`,
    details,
  )
}

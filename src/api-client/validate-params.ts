import type { z } from 'zod'
import { ValidationError } from './errors.js'
import { issueDetails } from './issue-details.js'

/**
 * Checks a caller's input against a shared request schema before anything is sent. The error names the first
 * offending field (dotted, under `prefix` when given) and lists every problem; input values are never echoed, so
 * a password or key in the input cannot leak into the message.
 */
export function validateParams<T extends z.ZodType>(schema: T, value: unknown, prefix?: string): z.output<T> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const details = issueDetails(result.error, prefix).map((d) => ({ ...d, path: d.path || 'params' }))
  const first = details[0]!
  throw new ValidationError(first.path, first.message, details)
}

/** A path parameter, checked non-empty (an empty one would address another endpoint) and percent-encoded. */
export function pathSegment(field: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ValidationError(field, 'must be a non-empty string')
  }
  return encodeURIComponent(value)
}

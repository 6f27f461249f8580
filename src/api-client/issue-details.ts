import type { z } from 'zod'

export type IssueDetail = { path: string; message: string }

/**
 * A zod failure as the `details` of an error body: one `{ path, message }` per problem, the path dotted under
 * `prefix` (`body.amount.value`). Input values are never included, so nothing secret can be echoed.
 */
export function issueDetails(error: z.ZodError, prefix?: string): IssueDetail[] {
  return error.issues.map((issue) => ({
    path: [...(prefix === undefined ? [] : [prefix]), ...issue.path.map(String)].join('.'),
    message: issue.message,
  }))
}

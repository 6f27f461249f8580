import type { z } from 'zod'
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi'
import type { Role } from '../../users/index.js'
import { ApiError } from './response-schemas.js'

type Body = z.ZodType | { [contentType: string]: z.ZodType }

/** One /api operation as the routes define it: their zod schemas in, the answers out. */
export type OperationSpec = {
  tag: string
  summary: string
  description?: string
  /** The least role that may call it (docs/users.md); absent: any signed-in role. */
  role?: Role
  query?: z.ZodType
  path?: z.ZodType
  body?: Body
  /** Answers by status; a schema is JSON, an object maps content types (CSV exports). */
  responses: Record<number, { description: string; body?: Body }>
  /** A 404 besides path parameters' (an id the store does not hold). */
  notFound?: boolean
  /** The store's state may refuse it (409 or 422: a payment already disposed, a suggestion no longer open). */
  conflict?: boolean
  /** Open without a token. */
  public?: boolean
}

const errorContent = { 'application/json': { schema: ApiError } }

function content(body: Body) {
  if ('_zod' in body) return { 'application/json': { schema: body as z.ZodType } }
  return Object.fromEntries(Object.entries(body).map(([type, schema]) => [type, { schema }]))
}

/** An operation object with the error answers every route gives for what it checks. */
export function operation(spec: OperationSpec): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {}
  for (const [status, answer] of Object.entries(spec.responses)) {
    responses[status] = {
      description: answer.description,
      ...(answer.body ? { content: content(answer.body) } : {}),
    }
  }
  const refusals: Array<[number, string, boolean]> = [
    [
      400,
      'A parameter or the body is invalid; `details` name each.',
      Boolean(spec.query ?? spec.path ?? spec.body),
    ],
    [401, 'No token, or not a token bankrec knows.', !spec.public],
    [
      403,
      `The user's role is below ${spec.role ?? 'viewer'}.`,
      spec.role !== undefined && spec.role !== 'viewer',
    ],
    [404, 'No such resource.', Boolean(spec.path) || Boolean(spec.notFound)],
    [409, 'The present state refuses it; `code` says why.', Boolean(spec.conflict)],
    [422, 'The request cannot apply to what it names; `code` says why.', Boolean(spec.conflict)],
  ]
  for (const [status, description, applies] of refusals) {
    if (applies && !(status in responses)) responses[status] = { description, content: errorContent }
  }
  return {
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.public ? { security: [] } : {}),
    ...(spec.role ? { 'x-bankrec-role': spec.role } : {}),
    ...(spec.query || spec.path
      ? {
          requestParams: {
            ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
            ...(spec.path ? { path: spec.path as z.ZodObject } : {}),
          },
        }
      : {}),
    ...(spec.body ? { requestBody: { required: true, content: content(spec.body) } } : {}),
    responses,
  }
}

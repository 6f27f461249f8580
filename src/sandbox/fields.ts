import { ApiError } from './api-error.js'

/**
 * Applies a sparse fieldset (`fields=a,b`): only the named fields plus the identifiers, which the server always
 * includes. An unknown field name is a validation error naming it.
 */
export function selectFields<T extends Record<string, unknown>>(
  item: T,
  fields: string | null | undefined,
  identifiers: readonly string[],
  known: readonly string[],
): Partial<T> {
  if (!fields) return item
  const wanted = fields.split(',')
  const unknown = wanted.filter((name) => !known.includes(name))
  if (unknown.length > 0) {
    throw new ApiError(400, 'validation_error', `Unknown field(s) in fields: ${unknown.join(', ')}.`, [
      { path: 'query.fields', message: `unknown field(s): ${unknown.join(', ')}` },
    ])
  }
  const out: Partial<T> = {}
  for (const name of new Set([...identifiers, ...wanted])) {
    if (name in item) (out as Record<string, unknown>)[name] = item[name]
  }
  return out
}

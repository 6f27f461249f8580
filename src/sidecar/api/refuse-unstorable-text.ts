import type { RequestHandler } from 'express'
import { SidecarApiError } from '../api-error.js'

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** The 1-based line of the first U+0000 or unpaired surrogate in a text body (the CSV import), if any. */
export function unstorableLine(text: string): number | undefined {
  const match = UNSTORABLE.exec(text)
  return match ? text.slice(0, match.index).split('\n').length : undefined
}

/** The dotted path of the first string (key or value) PostgreSQL cannot store, if any. */
function unstorableAt(root: unknown, base: string): string | undefined {
  type Visit = { value: unknown; path: string }
  // Iterative: a JSON body within the limit may nest deeper than the call stack allows.
  const pending: Visit[] = [{ value: root, path: base }]
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value, path } = visit
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) return path
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (UNSTORABLE.test(key)) return `${path}.${key}`
        pending.push({ value: item, path: `${path}.${key}` })
      }
    }
  }
  return undefined
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * Refuses U+0000 and unpaired surrogates in the path, the query and a JSON body with a 400 naming where: PostgreSQL
 * text cannot hold U+0000 (the insert fails, a 500) and would silently replace a lone surrogate.
 */
export const refuseUnstorableText: RequestHandler = (req, _res, next) => {
  const where =
    (UNSTORABLE.test(safeDecode(req.path)) ? 'path' : undefined) ??
    unstorableAt(req.query, 'query') ??
    unstorableAt(req.body, 'body')
  if (where === undefined) return next()
  const message = 'must not contain U+0000 or an unpaired surrogate'
  next(new SidecarApiError(400, 'validation_error', `${where} ${message}`, [{ path: where, message }]))
}

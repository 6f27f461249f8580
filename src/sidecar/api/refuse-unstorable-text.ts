import type { RequestHandler } from 'express'
import { SidecarApiError } from '../api-error.js'

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const unstorable = (text: string) => text.includes('\u0000') || LONE_SURROGATE.test(text)

/** The 1-based line of the first U+0000 or unpaired surrogate in a text body (the CSV import), if any. */
export function unstorableLine(text: string): number | undefined {
  const nul = text.indexOf('\u0000')
  const surrogate = LONE_SURROGATE.exec(text)?.index ?? -1
  const at = nul === -1 ? surrogate : surrogate === -1 ? nul : Math.min(nul, surrogate)
  return at === -1 ? undefined : text.slice(0, at).split('\n').length
}

/** The dotted path of the first string (key or value) PostgreSQL cannot store, if any. */
function unstorableAt(root: unknown, base: string): string | undefined {
  type Visit = { value: unknown; path: string }
  // Iterative: a JSON body within the limit may nest deeper than the call stack allows.
  const pending: Visit[] = [{ value: root, path: base }]
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value, path } = visit
    if (typeof value === 'string') {
      if (unstorable(value)) return path
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (unstorable(key)) return `${path}.${key}`
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
    (unstorable(safeDecode(req.path)) ? 'path' : undefined) ??
    unstorableAt(req.query, 'query') ??
    unstorableAt(req.body, 'body')
  if (where === undefined) return next()
  const message = 'must not contain U+0000 or an unpaired surrogate'
  next(new SidecarApiError(400, 'validation_error', `${where} ${message}`, [{ path: where, message }]))
}

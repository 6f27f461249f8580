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

/**
 * How deep a JSON body may nest. PostgreSQL's jsonb and the validators walk values recursively, so a body nested
 * thousands deep (within the size limit) would overflow a stack: a 500 instead of a 400. No field of the API nests
 * anywhere near this.
 */
export const MAX_JSON_DEPTH = 64

type Problem = { path: string; message: string }
const UNSTORABLE = 'must not contain U+0000 or an unpaired surrogate'

/** The first string (key or value) PostgreSQL cannot store, or the first value nested too deep, if any. */
function problemAt(root: unknown, base: string): Problem | undefined {
  type Visit = { value: unknown; path: string; depth: number }
  // Iterative: a JSON body within the limit may nest deeper than the call stack allows.
  const pending: Visit[] = [{ value: root, path: base, depth: 0 }]
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value, path, depth } = visit
    if (typeof value === 'string') {
      if (unstorable(value)) return { path, message: UNSTORABLE }
    } else if (typeof value === 'object' && value !== null) {
      if (depth === MAX_JSON_DEPTH) {
        return { path, message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` }
      }
      for (const [key, item] of Object.entries(value)) {
        if (unstorable(key)) return { path: `${path}.${key}`, message: UNSTORABLE }
        pending.push({ value: item, path: `${path}.${key}`, depth: depth + 1 })
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
 * text cannot hold U+0000 (the insert fails, a 500) and would silently replace a lone surrogate. A body or query
 * nested deeper than MAX_JSON_DEPTH is refused the same way. The dashboard's pages get the same check.
 */
export const refuseUnstorableText: RequestHandler = (req, _res, next) => {
  const problem =
    (unstorable(safeDecode(req.path)) ? { path: 'path', message: UNSTORABLE } : undefined) ??
    problemAt(req.query, 'query') ??
    problemAt(req.body, 'body')
  if (problem === undefined) return next()
  next(
    new SidecarApiError(400, 'validation_error', `${problem.path} ${problem.message}`, [
      { path: problem.path, message: problem.message },
    ]),
  )
}

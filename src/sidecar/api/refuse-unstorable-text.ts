import type { RequestHandler } from 'express'
import { SidecarApiError } from '../api-error.js'
import {
  isUnstorableText,
  unstorableIndex,
  unstorableJsonAt,
  UNSTORABLE_TEXT,
} from '../../storable-json/index.js'

/** The 1-based line of the first U+0000 or unpaired surrogate in a text body (the CSV import), if any. */
export function unstorableLine(text: string): number | undefined {
  const at = unstorableIndex(text)
  return at === -1 ? undefined : text.slice(0, at).split('\n').length
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
    (isUnstorableText(safeDecode(req.path)) ? { path: 'path', message: UNSTORABLE_TEXT } : undefined) ??
    unstorableJsonAt(req.query, 'query') ??
    unstorableJsonAt(req.body, 'body')
  if (problem === undefined) return next()
  next(
    new SidecarApiError(400, 'validation_error', `${problem.path} ${problem.message}`, [
      { path: problem.path, message: problem.message },
    ]),
  )
}

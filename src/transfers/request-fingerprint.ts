import { createHash } from 'node:crypto'
import { canonicalJson } from '../canonical-json/index.js'

/** Identifies a request body regardless of key order, to tell a repeated request from a different one. */
export function requestFingerprint(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex')
}

import { createHash } from 'node:crypto'

/**
 * An audit entry as it is hashed: `at` as an ISO timestamp, `seq` as a decimal string. `actorRole` is left out
 * when absent (canonicalJson drops undefined), so entries written before roles existed hash as they did.
 */
export type AuditEntry = {
  seq: string
  at: string
  actor: string
  actorRole?: string
  action: string
  entity: string
  entityId: string
  payload: Record<string, unknown>
}

/** The prev_hash of the first entry. */
export const GENESIS_HASH = '0'.repeat(64)

/**
 * JSON with object keys sorted at every level, so an entry hashes the same however its payload was built and
 * after a round trip through JSONB (which reorders keys). Payloads hold strings, booleans, null and integers.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const object = value as Record<string, unknown>
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`
}

/** sha256 (hex) of the previous entry's hash followed by the canonical JSON of this entry. */
export function auditEntryHash(prevHash: string, entry: AuditEntry): string {
  return createHash('sha256').update(prevHash).update(canonicalJson(entry)).digest('hex')
}

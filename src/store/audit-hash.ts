import { createHash } from 'node:crypto'
import { canonicalJson } from '../canonical-json/index.js'

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

/** sha256 (hex) of the previous entry's hash followed by the canonical JSON of this entry. */
export function auditEntryHash(prevHash: string, entry: AuditEntry): string {
  return createHash('sha256').update(prevHash).update(canonicalJson(entry)).digest('hex')
}

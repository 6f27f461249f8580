import { sql, type Kysely, type Selectable } from 'kysely'
import { auditEntryHash, GENESIS_HASH, type AuditEntry } from './audit-hash.js'
import type { AuditLogTable, Database } from './database.js'

export type AuditAppend = {
  /** A user's name, the built-in admin's name, or `engine`. */
  actor: string
  /** The acting person's role; none for the engine. */
  actorRole?: string | null
  action: string
  entity: string
  entityId: string
  payload: Record<string, unknown>
}

/**
 * Appends entries to the audit log, each chained to the one before. Call it inside the transaction that makes
 * the change it records; a transaction-scoped advisory lock (per schema) keeps appends from interleaving, so the
 * chain has no fork and no gap.
 */
export async function appendAudit(
  db: Kysely<Database>,
  at: Date,
  entries: readonly AuditAppend[],
): Promise<void> {
  if (entries.length === 0) return
  await sql`select pg_advisory_xact_lock(hashtextextended(current_schema() || ':audit', 0))`.execute(db)
  const last = await db
    .selectFrom('audit_log')
    .select(['seq', 'hash'])
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst()
  let seq = BigInt(last?.seq ?? 0)
  let prevHash = last?.hash ?? GENESIS_HASH
  const rows = entries.map((entry) => {
    seq += 1n
    const { actorRole, ...rest } = entry
    const hashed: AuditEntry = {
      seq: seq.toString(),
      at: at.toISOString(),
      ...rest,
      actorRole: actorRole ?? undefined,
    }
    const hash = auditEntryHash(prevHash, hashed)
    const row = {
      seq: hashed.seq,
      at,
      actor: entry.actor,
      actor_role: actorRole ?? null,
      action: entry.action,
      entity: entry.entity,
      entity_id: entry.entityId,
      payload: JSON.stringify(entry.payload),
      prev_hash: prevHash,
      hash,
    }
    prevHash = hash
    return row
  })
  for (let start = 0; start < rows.length; start += 1000) {
    await db
      .insertInto('audit_log')
      .values(rows.slice(start, start + 1000))
      .execute()
  }
}

export type AuditVerification =
  { ok: true; entries: number } | { ok: false; entries: number; brokenSeq: string; reason: string }

/**
 * Walks the chain in order and recomputes every hash. The first entry whose seq is not the next one (a deleted
 * entry), whose prev_hash is not the hash before it, or whose content no longer hashes to its hash breaks it.
 */
export async function verifyAuditChain(db: Kysely<Database>, batchSize = 5000): Promise<AuditVerification> {
  let expectedSeq = 1n
  let prevHash = GENESIS_HASH
  let entries = 0
  for (;;) {
    const rows = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('seq', '>=', expectedSeq.toString())
      .orderBy('seq')
      .limit(batchSize)
      .execute()
    for (const row of rows) {
      const broken = (reason: string): AuditVerification => ({
        ok: false,
        entries,
        brokenSeq: row.seq,
        reason,
      })
      if (BigInt(row.seq) !== expectedSeq) return broken(`entry ${expectedSeq} is missing`)
      if (row.prev_hash !== prevHash) return broken('prev_hash is not the hash of the entry before')
      const hash = auditEntryHash(prevHash, {
        seq: row.seq,
        at: row.at.toISOString(),
        actor: row.actor,
        actorRole: row.actor_role ?? undefined,
        action: row.action,
        entity: row.entity,
        entityId: row.entity_id,
        payload: row.payload,
      })
      if (hash !== row.hash) return broken('the entry does not hash to its hash: it was changed')
      prevHash = row.hash
      expectedSeq++
      entries++
    }
    if (rows.length < batchSize) return { ok: true, entries }
  }
}

export type AuditRow = Selectable<AuditLogTable>

export type AuditFilter = { actor?: string; action?: string; entity?: string; entityId?: string }

/** A page of the audit log, newest first; `before` is the last seq of the previous page. */
export async function listAuditEntries(
  db: Kysely<Database>,
  filter: AuditFilter,
  before: string | null,
  limit: number,
): Promise<AuditRow[]> {
  let query = db.selectFrom('audit_log').selectAll()
  if (filter.actor) query = query.where('actor', '=', filter.actor)
  if (filter.action) query = query.where('action', '=', filter.action)
  if (filter.entity) query = query.where('entity', '=', filter.entity)
  if (filter.entityId) query = query.where('entity_id', '=', filter.entityId)
  if (before) query = query.where('seq', '<', before)
  return query.orderBy('seq', 'desc').limit(limit).execute()
}

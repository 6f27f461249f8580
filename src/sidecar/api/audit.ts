import { Router } from 'express'
import { z } from 'zod'
import { Limit } from '../../api-client/index.js'
import { listAuditEntries, type AuditRow } from '../../store/index.js'
import { handle, parseRequest } from '../api-error.js'
import type { SidecarContext } from '../context.js'
import { decodeSeqCursor, keyPage, listFingerprint } from './key-cursor.js'

const Text = z.string().min(1).max(255).optional()

export const Query = z.object({
  actor: Text,
  action: Text,
  entity: Text,
  entityId: Text,
  cursor: z.string().min(1).optional(),
  limit: Limit.default(100),
})

export function presentAuditEntry(row: AuditRow) {
  return {
    seq: row.seq,
    at: row.at.toISOString(),
    actor: row.actor,
    actorRole: row.actor_role,
    action: row.action,
    entity: row.entity,
    entityId: row.entity_id,
    payload: row.payload,
    hash: row.hash,
  }
}

/** GET /api/audit: who did what, newest first, by actor, action or entity (docs/users.md). */
export function auditRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/audit',
    handle(async (req, res) => {
      const { cursor, limit, ...filter } = parseRequest(Query, req.query, 'query')
      const fingerprint = listFingerprint('audit', filter)
      const before = cursor ? decodeSeqCursor(cursor, fingerprint) : null
      const rows = await listAuditEntries(context.store.db, filter, before, limit + 1)
      res.json(keyPage(rows, limit, (row) => row.seq, fingerprint, presentAuditEntry))
    }),
  )
  return router
}

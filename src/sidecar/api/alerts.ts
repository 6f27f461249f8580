import { Router } from 'express'
import { z } from 'zod'
import { Limit } from '../../api-client/index.js'
import { listAlertNotices, type NoticeFeedItem } from '../../store/index.js'
import { handle, parseRequest } from '../api-error.js'
import type { SidecarContext } from '../context.js'
import { decodeTimeCursor, keyPage, listFingerprint, timePositionKey } from './key-cursor.js'

export const Query = z.object({
  severity: z.enum(['critical', 'warning', 'info']).optional(),
  type: z.enum(['alert', 'reminder', 'recovery', 'info']).optional(),
  cursor: z.string().min(1).optional(),
  limit: Limit.default(50),
})

export function presentNotice(item: NoticeFeedItem) {
  const { notice } = item
  return {
    id: notice.id,
    type: notice.type,
    kind: notice.kind,
    severity: notice.severity,
    incidentId: notice.incidentId,
    subject: notice.subject,
    title: notice.title,
    text: notice.text,
    action: notice.action,
    fields: notice.fields,
    occurredAt: notice.occurredAt,
    deliveries: item.deliveries,
  }
}

/** GET /api/alerts: the notices sent to operations, newest first, with their delivery to each sink. */
export function alertRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/alerts',
    handle(async (req, res) => {
      const query = parseRequest(Query, req.query, 'query')
      const filter = { severity: query.severity, type: query.type }
      const fingerprint = listFingerprint('alerts', filter)
      const before = query.cursor ? decodeTimeCursor(query.cursor, fingerprint) : null
      const rows = await listAlertNotices(context.store.db, filter, before, query.limit + 1)
      res.json(keyPage(rows, query.limit, (row) => timePositionKey(row.position), fingerprint, presentNotice))
    }),
  )
  return router
}

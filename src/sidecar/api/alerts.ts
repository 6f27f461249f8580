import { Router } from 'express'
import { z } from 'zod'
import { Limit } from '../../api-client/index.js'
import { listAlertNotices, type NoticeFeedItem } from '../../store/index.js'
import { handle, parseRequest, SidecarApiError } from '../api-error.js'
import type { SidecarContext } from '../runtime.js'
import { decodeKeyCursor, encodeKeyCursor, listFingerprint } from './key-cursor.js'

const Query = z.object({
  severity: z.enum(['critical', 'warning', 'info']).optional(),
  type: z.enum(['alert', 'reminder', 'recovery', 'info']).optional(),
  cursor: z.string().min(1).optional(),
  limit: Limit.default(50),
})

const Position = z.tuple([z.string().min(1), z.string().min(1)])

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
      let before: { createdAt: string; id: string } | null = null
      if (query.cursor) {
        const parsed = Position.safeParse(safeJson(decodeKeyCursor(query.cursor, fingerprint)))
        if (!parsed.success) {
          throw new SidecarApiError(400, 'invalid_cursor', 'query.cursor is malformed', [
            {
              path: 'query.cursor',
              message: 'is malformed; pass pagination.nextCursor exactly as returned.',
            },
          ])
        }
        before = { createdAt: parsed.data[0], id: parsed.data[1] }
      }
      const rows = await listAlertNotices(context.store.db, filter, before, query.limit + 1)
      const page = rows.slice(0, query.limit)
      const last = page.at(-1)
      const hasMore = rows.length > query.limit
      res.json({
        data: page.map(presentNotice),
        pagination: {
          hasMore,
          nextCursor:
            hasMore && last
              ? encodeKeyCursor(JSON.stringify([last.position.createdAt, last.position.id]), fingerprint)
              : null,
        },
      })
    }),
  )
  return router
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

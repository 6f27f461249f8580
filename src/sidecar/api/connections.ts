import { Router } from 'express'
import { listMirroredConnections } from '../../store/index.js'
import { handle } from '../api-error.js'
import type { SidecarContext } from '../runtime.js'

/** GET /api/connections (the mirror's view) and POST /api/connections/{id}/sync (on demand). */
export function connectionRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/connections',
    handle(async (_req, res) => {
      const rows = await listMirroredConnections(context.store.db)
      res.json({
        data: rows.map((row) => ({
          id: row.id,
          entityId: row.entity_id,
          kind: row.kind,
          status: row.status,
          institutionId: row.institution_id,
          institutionName: row.institution_name,
          portalUrl: row.portal_url,
          errorCode: row.error_code,
          errorMessage: row.error_message,
          lastSyncedAt: row.last_synced_at?.toISOString() ?? null,
          observedAt: row.observed_at.toISOString(),
        })),
        pagination: { hasMore: false, nextCursor: null },
      })
    }),
  )
  router.post(
    '/connections/:id/sync',
    handle(async (req, res) => {
      await context.requestSync(String(req.params.id), 'api')
      res.status(202).json({ connectionId: req.params.id, status: 'queued' })
    }),
  )
  return router
}

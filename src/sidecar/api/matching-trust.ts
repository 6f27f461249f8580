import { Router } from 'express'
import { z } from 'zod'
import { AutoApplyModeSchema, TrustReportRequest } from '../../matching/index.js'
import { handle, parseRequest } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'

export const ModeChange = z.strictObject({ autoApply: AutoApplyModeSchema })

/**
 * GET /api/settings/matching: the automatic-matching mode in force (off, shadow, on), where it comes from and who
 * set it. PUT /api/settings/matching `{ autoApply }` (admin): changes it for every process from its next matching
 * run, no restart, in the audit log. GET /api/matching/trust-report?from=&to= (any role): what the engine would
 * have settled (shadow) or settled (on) in those days and how people decided (docs/matching.md).
 */
export function matchingTrustRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/settings/matching',
    handle(async (_req, res) => {
      res.json(await context.matching.autoApplyMode())
    }),
  )
  router.put(
    '/settings/matching',
    requireRole('admin'),
    handle(async (req, res) => {
      const { autoApply } = parseRequest(ModeChange, req.body ?? {}, 'body')
      res.json(await context.matching.setAutoApplyMode(autoApply, actorOf(res)))
    }),
  )
  router.get(
    '/matching/trust-report',
    handle(async (req, res) => {
      const request = parseRequest(TrustReportRequest, req.query, 'query')
      res.json({
        ...(await context.matching.trustReport(request)),
        mode: await context.matching.autoApplyMode(),
      })
    }),
  )
  return router
}

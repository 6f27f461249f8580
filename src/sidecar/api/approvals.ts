import { Router } from 'express'
import { z } from 'zod'
import { Limit } from '../../api-client/index.js'
import { presentRemittanceImport } from '../../closing/index.js'
import { listPendingApprovals } from '../../store/index.js'
import { handle, parseRequest } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { presentPendingApproval } from '../pending-approvals.js'
import { controlsOf } from '../controls-config.js'

export const Query = z.object({ limit: Limit.default(100) })
export const IdParams = z.object({ id: z.string().regex(/^\d{1,18}$/, 'must be a remittance import id') })
export const DecisionBody = z.strictObject({ note: z.string().trim().max(500).optional() })

/**
 * GET /api/approvals: every operation waiting for a second person (dispositions, invoice write-offs, credit notes,
 * remittance imports), oldest first, with maker, amount, account and reason. POST
 * /api/remittance-imports/{id}/approve|decline decides a remittance import (the others have their own routes).
 */
export function approvalRoutes(context: SidecarContext): Router {
  const router = Router()
  const { chart } = controlsOf(context.config)
  router.get(
    '/approvals',
    handle(async (req, res) => {
      const { limit } = parseRequest(Query, req.query, 'query')
      const rows = await listPendingApprovals(context.store.db, limit)
      res.json({ data: rows.map((row) => presentPendingApproval(row, context.config, chart)) })
    }),
  )
  for (const decision of ['approve', 'decline'] as const) {
    router.post(
      `/remittance-imports/:id/${decision}`,
      requireRole('clerk'),
      handle(async (req, res) => {
        const { id } = parseRequest(IdParams, req.params, 'params')
        const { note } = parseRequest(DecisionBody, req.body ?? {}, 'body')
        const row = await context.closing.decideRemittance(id, decision, actorOf(res), note || undefined)
        res.json(presentRemittanceImport(row))
      }),
    )
  }
  return router
}

import { Router } from 'express'
import { z } from 'zod'
import { Limit, Uuid } from '../../api-client/index.js'
import {
  DispositionRequestSchema,
  InvoiceWriteOffRequestSchema,
  presentDisposition,
} from '../../closing/index.js'
import { listDispositions } from '../../store/index.js'
import { handle, parseRequest } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'

export const Query = z.object({
  status: z.enum(['pending_approval', 'active', 'declined', 'undone']).optional(),
  transactionId: Uuid.optional(),
  invoiceId: z.string().min(1).max(255).optional(),
  after: z
    .string()
    .regex(/^\d{1,18}$/, 'must be a disposition id')
    .optional(),
  limit: Limit.default(100),
})

export const KeyParams = z.object({ key: z.string().min(1).max(500) })
/** An optional note on the decision, kept in the audit log. */
export const DecisionBody = z.strictObject({ note: z.string().trim().max(500).optional() })
export const InvoiceParams = z.object({ id: z.string().min(1).max(255) })
export const IdParams = z.object({ id: z.string().regex(/^\d{1,18}$/, 'must be a disposition id') })

/**
 * POST /api/exceptions/{key}/dispose (a person's disposition of what an exception holds of a payment),
 * POST /api/invoices/{id}/write-off (of an invoice's open rest), GET /api/dispositions,
 * POST /api/dispositions/{id}/approve, /decline (maker-checker) and /undo.
 */
export function dispositionRoutes(context: SidecarContext): Router {
  const router = Router()
  router.post(
    '/exceptions/:key/dispose',
    requireRole('clerk'),
    handle(async (req, res) => {
      const { key } = parseRequest(KeyParams, req.params, 'params')
      const body = parseRequest(DispositionRequestSchema.strict(), req.body, 'body')
      const row = await context.closing.dispose(key, body, actorOf(res))
      res.status(row.status === 'pending_approval' ? 202 : 201).json(presentDisposition(row))
    }),
  )
  router.post(
    '/invoices/:id/write-off',
    requireRole('clerk'),
    handle(async (req, res) => {
      const { id } = parseRequest(InvoiceParams, req.params, 'params')
      const body = parseRequest(InvoiceWriteOffRequestSchema.strict(), req.body, 'body')
      const row = await context.closing.writeOffInvoice(id, body, actorOf(res))
      res.status(row.status === 'pending_approval' ? 202 : 201).json(presentDisposition(row))
    }),
  )
  router.get(
    '/dispositions',
    handle(async (req, res) => {
      const query = parseRequest(Query, req.query, 'query')
      const rows = await listDispositions(
        context.store.db,
        { status: query.status, transactionId: query.transactionId, invoiceId: query.invoiceId },
        query.after ?? null,
        query.limit,
      )
      res.json({ data: rows.map(presentDisposition) })
    }),
  )
  for (const decision of ['approve', 'decline'] as const) {
    router.post(
      `/dispositions/:id/${decision}`,
      requireRole('clerk'),
      handle(async (req, res) => {
        const { id } = parseRequest(IdParams, req.params, 'params')
        const { note } = parseRequest(DecisionBody, req.body ?? {}, 'body')
        const row = await context.closing.decideDisposition(id, decision, actorOf(res), note || undefined)
        res.json(presentDisposition(row))
      }),
    )
  }
  router.post(
    '/dispositions/:id/undo',
    requireRole('clerk'),
    handle(async (req, res) => {
      const { id } = parseRequest(IdParams, req.params, 'params')
      const row = await context.closing.undoDisposition(id, actorOf(res))
      res.json(presentDisposition(row))
    }),
  )
  return router
}

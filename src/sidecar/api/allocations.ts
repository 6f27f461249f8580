import { Router } from 'express'
import { z } from 'zod'
import { DecimalString, Limit, Uuid } from '../../api-client/index.js'
import { activeAllocationsOfTransactions, findAllocation, listAllocations } from '../../store/index.js'
import { handle, parseRequest, SidecarApiError } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { decodeKeyCursor, keyPage, listFingerprint } from './key-cursor.js'
import { presentAllocation } from './present-matching.js'

export const Query = z.object({
  invoiceId: z.string().min(1).optional(),
  transactionId: Uuid.optional(),
  includeReversed: z.enum(['true', 'false']).default('false'),
  cursor: z.string().min(1).optional(),
  limit: Limit.default(100),
})

export const ManualMatch = z.strictObject({
  transactionId: Uuid,
  invoiceId: z.string().min(1).max(255),
  amount: DecimalString.refine((value) => Number(value) > 0, 'must be more than 0').optional(),
  /** add: to what the transaction pays the invoice already; replace: instead of it. */
  mode: z.enum(['add', 'replace']).default('add'),
})

export const TransactionParams = z.object({ id: Uuid })

export const Params = z.object({ id: z.string().regex(/^\d{1,18}$/, 'must be an allocation id') })

/**
 * GET /api/allocations, POST /api/allocations (a person's match, `mode` add or replace), DELETE
 * /api/allocations/{id} (unmatch) and POST /api/transactions/{id}/give-back (back to the engine).
 * Manual matches and unmatches are inputs to the matcher and take effect through a matching run before the
 * answer.
 */
export function allocationRoutes(context: SidecarContext): Router {
  const router = Router()
  const db = context.store.db
  router.get(
    '/allocations',
    handle(async (req, res) => {
      const query = parseRequest(Query, req.query, 'query')
      const filter = {
        invoiceId: query.invoiceId,
        transactionId: query.transactionId,
        includeReversed: query.includeReversed === 'true',
      }
      const fingerprint = listFingerprint('allocations', {
        invoiceId: filter.invoiceId,
        transactionId: filter.transactionId,
        includeReversed: query.includeReversed,
      })
      const after = query.cursor ? decodeKeyCursor(query.cursor, fingerprint) : null
      const rows = await listAllocations(db, filter, after, query.limit + 1)
      res.json(keyPage(rows, query.limit, (row) => row.id, fingerprint, presentAllocation))
    }),
  )
  router.post(
    '/allocations',
    requireRole('clerk'),
    handle(async (req, res) => {
      const body = parseRequest(ManualMatch, req.body, 'body')
      await context.closing.manualMatch(body, actorOf(res))
      const allocation = (await activeAllocationsOfTransactions(db, [body.transactionId])).find(
        (row) => row.invoice_id === body.invoiceId && row.made_by === 'person',
      )
      if (!allocation) {
        throw new SidecarApiError(
          409,
          'nothing_allocated',
          'The match was recorded but allocates nothing: the transaction or the invoice has nothing left (see GET /api/exceptions).',
        )
      }
      res.status(201).json(presentAllocation(allocation))
    }),
  )
  router.post(
    '/transactions/:id/give-back',
    requireRole('clerk'),
    handle(async (req, res) => {
      const { id } = parseRequest(TransactionParams, req.params, 'params')
      const done = await context.closing.giveBack(id, actorOf(res))
      const allocations = await activeAllocationsOfTransactions(db, [id])
      res.json({ transactionId: id, removed: done.removed, allocations: allocations.map(presentAllocation) })
    }),
  )
  router.delete(
    '/allocations/:id',
    requireRole('clerk'),
    handle(async (req, res) => {
      const { id } = parseRequest(Params, req.params, 'params')
      await context.closing.unmatch(id, actorOf(res))
      const row = await findAllocation(db, id)
      res.json(presentAllocation(row!))
    }),
  )
  return router
}

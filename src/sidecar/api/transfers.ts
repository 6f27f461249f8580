import { Router } from 'express'
import { z } from 'zod'
import { Limit, TransferStatus, Uuid } from '../../api-client/index.js'
import { listAttemptsOfTransfers, readTransfersPage } from '../../store/index.js'
import { createTransfer, getTransfer, presentTransfer, retryTransfer } from '../../transfers/index.js'
import { handle, parseRequest, SidecarApiError } from '../api-error.js'
import { requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { transferContextOf } from '../transfer-services.js'
import { decodeTimeCursor, keyPage, listFingerprint, timePositionKey } from './key-cursor.js'

export const ListQuery = z.object({
  // bankrec's own statuses (stored, no answer yet; refused by the bank), then the bank's.
  status: z.enum(['submitting', 'rejected', ...TransferStatus.options]).optional(),
  accountId: Uuid.optional(),
  cursor: z.string().min(1).optional(),
  limit: Limit.default(50),
})

/**
 * POST /api/transfers (the seed's create-transfer body; the caller's Idempotency-Key is honoured, one is generated
 * otherwise), GET /api/transfers (a page of records, newest first; by status and by source or destination
 * account), GET /api/transfers/{id} and POST /api/transfers/{id}/retry. `{id}` is bankrec's id or the bank's
 * transfer id. Answers are bankrec's transfer record.
 */
export function transferRoutes(context: SidecarContext): Router {
  const router = Router()
  const ctx = transferContextOf(context)
  router.post(
    '/transfers',
    requireRole('admin'),
    handle(async (req, res) => {
      const result = await createTransfer(ctx, req.body, {
        idempotencyKey: req.get('idempotency-key'),
      })
      if (result.replayed) res.setHeader('Idempotent-Replayed', 'true')
      res.status(result.replayed ? 200 : 201).json(result.transfer)
    }),
  )
  router.get(
    '/transfers',
    handle(async (req, res) => {
      const query = parseRequest(ListQuery, req.query, 'query')
      const filter = { status: query.status, accountId: query.accountId }
      const fingerprint = listFingerprint('transfers', filter)
      const before = query.cursor ? decodeTimeCursor(query.cursor, fingerprint) : null
      const items = await readTransfersPage(ctx.db, filter, before, query.limit + 1)
      const attempts = await listAttemptsOfTransfers(
        ctx.db,
        items.slice(0, query.limit).map((item) => item.row.id),
      )
      res.json(
        keyPage(
          items,
          query.limit,
          (item) => timePositionKey(item.position),
          fingerprint,
          (item) => presentTransfer(item.row, attempts.get(item.row.id) ?? []),
        ),
      )
    }),
  )
  router.get(
    '/transfers/:id',
    handle(async (req, res) => {
      const id = String(req.params.id)
      const transfer = await getTransfer(ctx, id)
      if (!transfer) throw new SidecarApiError(404, 'not_found', `No transfer ${JSON.stringify(id)}.`)
      res.json(transfer)
    }),
  )
  router.post(
    '/transfers/:id/retry',
    requireRole('admin'),
    handle(async (req, res) => {
      const transfer = await retryTransfer(ctx, String(req.params.id))
      res.json(transfer)
    }),
  )
  return router
}

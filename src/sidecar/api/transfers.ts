import { Router } from 'express'
import { createTransfer, getTransfer, retryTransfer, TransferError } from '../../transfers/index.js'
import { handle, SidecarApiError } from '../api-error.js'
import type { SidecarContext } from '../runtime.js'
import { transferContextOf } from '../transfer-services.js'

function asApiError(error: unknown): unknown {
  if (!(error instanceof TransferError)) return error
  return new SidecarApiError(error.status, error.code, error.message, error.details)
}

/**
 * POST /api/transfers (the seed's create-transfer body; the caller's Idempotency-Key is honoured, one is generated
 * otherwise), GET /api/transfers/{id} and POST /api/transfers/{id}/retry. `{id}` is bankrec's id or the bank's
 * transfer id. Answers are bankrec's transfer record.
 */
export function transferRoutes(context: SidecarContext): Router {
  const router = Router()
  const ctx = transferContextOf(context)
  router.post(
    '/transfers',
    handle(async (req, res) => {
      const result = await createTransfer(ctx, req.body, {
        idempotencyKey: req.get('idempotency-key'),
      }).catch((error: unknown) => {
        throw asApiError(error)
      })
      if (result.replayed) res.setHeader('Idempotent-Replayed', 'true')
      res.status(result.replayed ? 200 : 201).json(result.transfer)
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
    handle(async (req, res) => {
      const transfer = await retryTransfer(ctx, String(req.params.id)).catch((error: unknown) => {
        throw asApiError(error)
      })
      res.json(transfer)
    }),
  )
  return router
}

import { Router } from 'express'
import { z } from 'zod'
import { TransferFailureReason, TransferStatus } from '../../api-client/index.js'
import { notFound, parseInput } from '../api-error.js'
import type { SandboxRuntime } from '../context.js'
import { route } from '../http.js'
import { presentTransfer } from '../present-transfer.js'
import { forceTransferOutcome } from '../transfer-lifecycle.js'

const FAILURES = ['failed', 'returned', 'cancelled']

const OutcomeBody = z
  .strictObject({
    status: TransferStatus,
    failureReason: z
      .strictObject({ message: TransferFailureReason.shape.message.min(1).max(500) })
      .optional(),
  })
  .refine((body) => !body.failureReason || FAILURES.includes(body.status), {
    path: ['failureReason'],
    message: 'applies only to failed, returned or cancelled',
  })

/** POST /_sandbox/transfers/{id}/outcome {status, failureReason?}: forces a non-terminal transfer to any status. */
export function transferControl(runtime: SandboxRuntime): Router {
  const router = Router()
  router.post(
    '/transfers/:id/outcome',
    route((req, res) => {
      const { ctx } = runtime
      const id = String(req.params.id)
      const transfer = ctx.state.transfers.get(id)
      if (!transfer) throw notFound('transfer', id)
      const body = parseInput(OutcomeBody, req.body, 'body')
      forceTransferOutcome(ctx, transfer, body.status, body.failureReason?.message)
      res.json(presentTransfer(transfer))
    }),
  )
  return router
}

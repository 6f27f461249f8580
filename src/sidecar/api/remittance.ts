import { Router } from 'express'
import { z } from 'zod'
import { Uuid } from '../../api-client/index.js'
import {
  parseRemittanceCsv,
  RemittanceFee,
  RemittanceFeeReason,
  RemittanceLine,
  type RemittanceAdvice,
} from '../../reconcile/index.js'
import { handle, parseRequest, SidecarApiError } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { csvBody, importCsvBody, rejectImport } from './library-request.js'

const JsonAdvice = z.strictObject({
  lines: z.array(RemittanceLine).min(1).max(10_000),
  fee: RemittanceFee.optional(),
  feeReason: RemittanceFeeReason.optional(),
})

const Params = z.object({ id: Uuid })
const Query = z.object({ feeReason: RemittanceFeeReason.optional() })

/**
 * POST /api/transactions/{id}/remittance (clerk): settles a bank line by its remittance advice or payout report,
 * JSON `{ lines, fee?, feeReason? }` or a CSV `invoiceNumber,amount[,fee]` (`?feeReason=psp_fee` for a payout).
 * All of it or nothing (docs/closing.md, lump sums).
 */
export function remittanceRoutes(context: SidecarContext): Router {
  const router = Router()
  router.post(
    '/transactions/:id/remittance',
    requireRole('clerk'),
    csvBody(),
    handle(async (req, res) => {
      const { id } = parseRequest(Params, req.params, 'params')
      let advice: RemittanceAdvice
      if (req.is('application/json') && !('csv' in (req.body ?? {}))) {
        advice = parseRequest(JsonAdvice, req.body, 'body')
      } else {
        const { feeReason } = parseRequest(Query, req.query, 'query')
        const parsed = await importCsvBody(req, res, (input) => parseRemittanceCsv(input, feeReason))
        if (!parsed.ok) return rejectImport(res, parsed)
        if (parsed.advice.lines.length === 0) {
          throw new SidecarApiError(400, 'validation_error', 'The advice has no lines.', [
            { path: 'body', message: 'must have at least one invoiceNumber,amount row' },
          ])
        }
        advice = parsed.advice
      }
      const result = await context.reconcile.importRemittance(id, advice, actorOf(res))
      res.status(201).json({ transactionId: id, ...result })
    }),
  )
  return router
}

import { Router } from 'express'
import { z } from 'zod'
import { IsoDate, Uuid } from '../../api-client/index.js'
import { streamBalanceProof, writeBalanceProofJson } from '../../balance-proof/index.js'
import { handle, parseRequest } from '../api-error.js'
import type { SidecarContext } from '../context.js'

export const Query = z
  .object({
    connectionId: Uuid.optional(),
    accountId: Uuid.optional(),
    dateGte: IsoDate.optional(),
    dateLt: IsoDate.optional(),
  })
  .refine((q) => q.dateGte === undefined || q.dateLt === undefined || q.dateGte < q.dateLt, {
    path: ['dateLt'],
    message: 'must be later than dateGte',
  })

/**
 * GET /api/balance-proof: per account and day, whether the mirrored posted transactions add up to the bank's
 * postedTransactionDelta and the ledger balances follow from each other. Streamed: `{ data, summary, meta }`.
 */
export function balanceProofRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/balance-proof',
    handle(async (req, res) => {
      const query = parseRequest(Query, req.query, 'query')
      res.status(200).type('application/json')
      try {
        await writeBalanceProofJson(streamBalanceProof(context.store.db, query), res, {
          requestId: String(res.locals.requestId),
        })
        res.end()
      } catch (error) {
        // The status line is already sent: cut the body short so no client takes it for a whole proof.
        context.logger.error({ err: error }, 'balance proof failed while streaming')
        res.destroy()
      }
    }),
  )
  return router
}

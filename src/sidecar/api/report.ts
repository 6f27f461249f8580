import { Router } from 'express'
import { z } from 'zod'
import { IsoDate } from '../../api-client/index.js'
import { matchReport } from '../../closing/index.js'
import { handle, parseRequest } from '../api-error.js'
import type { SidecarContext } from '../context.js'

export const Query = z
  .object({ from: IsoDate.optional(), to: IsoDate.optional() })
  .refine((query) => !query.from || !query.to || query.from <= query.to, {
    message: 'from must not be after to',
    path: ['from'],
  })

/** GET /api/report?from=&to=: inflows, matched and unmatched counts and amounts, match rate, receivables by age. */
export function reportRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/report',
    handle(async (req, res) => {
      const query = parseRequest(Query, req.query, 'query')
      res.json(await matchReport(context.store.db, { ...query, asOf: context.clock.now() }))
    }),
  )
  return router
}

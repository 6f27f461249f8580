import { Router } from 'express'
import { z } from 'zod'
import { Limit, Uuid } from '../../api-client/index.js'
import { readTransactionsPage } from '../../store/index.js'
import { handle, parseRequest } from '../api-error.js'
import type { SidecarContext } from '../context.js'
import { listFingerprint } from '../../list-cursor/index.js'
import { decodeMirrorCursor, mirrorPage } from './mirror-cursor.js'
import { presentMirroredTransaction } from './present-mirror.js'

export const Query = z.object({
  connectionId: Uuid.optional(),
  accountId: Uuid.optional(),
  cursor: z.string().min(1).optional(),
  limit: Limit.default(100),
})

/** GET /api/transactions: the mirror in the bank API's shapes, in id order, keyset-paginated. */
export function transactionRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/transactions',
    handle(async (req, res) => {
      const query = parseRequest(Query, req.query, 'query')
      const filter = { connectionId: query.connectionId, accountId: query.accountId }
      const fingerprint = listFingerprint('transactions', filter)
      const after = query.cursor ? decodeMirrorCursor(query.cursor, fingerprint) : null
      const rows = await readTransactionsPage(context.store.db, filter, after, query.limit + 1)
      res.json(
        mirrorPage(rows, query.limit, fingerprint, String(res.locals.requestId), presentMirroredTransaction),
      )
    }),
  )
  return router
}

import { Router } from 'express'
import { z } from 'zod'
import { Limit, Uuid } from '../../api-client/index.js'
import { readAccountsPage } from '../../store/index.js'
import { handle, parseRequest } from '../api-error.js'
import type { SidecarContext } from '../context.js'
import { listFingerprint } from '../../list-cursor/index.js'
import { decodeMirrorCursor, mirrorPage } from './mirror-cursor.js'
import { presentMirroredAccount } from './present-mirror.js'

export const Query = z.object({
  connectionId: Uuid.optional(),
  cursor: z.string().min(1).optional(),
  limit: Limit.default(100),
})

/** GET /api/accounts: the mirrored accounts in the bank API's Account shape, in id order, keyset-paginated. */
export function accountRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/accounts',
    handle(async (req, res) => {
      const query = parseRequest(Query, req.query, 'query')
      const filter = { connectionId: query.connectionId }
      const fingerprint = listFingerprint('accounts', filter)
      const after = query.cursor ? decodeMirrorCursor(query.cursor, fingerprint) : null
      const rows = await readAccountsPage(context.store.db, filter, after, query.limit + 1)
      res.json(
        mirrorPage(rows, query.limit, fingerprint, String(res.locals.requestId), presentMirroredAccount),
      )
    }),
  )
  return router
}
